// Package mode is how every policy is switched on, off, or to one of its
// variants: one small type instead of a mix of Enabled, Disabled and
// per-policy flags. A policy's Mode field is Default (the zero value, so the
// zero Policy is still the default one) until its WithDefaults puts the
// policy's own default there; its Validate refuses a mode it does not take.
// The words are the data-* attributes' ("on", "off", …).
package mode

import "errors"

// Mode says whether a policy runs, and how.
type Mode uint8

const (
	Default     Mode = iota // the policy's own default (its WithDefaults says which)
	Off                     // the policy does nothing
	On                      // the policy runs as its package says
	Always                  // negcache: for every failure, not only after an outage
	CrossOrigin             // idempotency: keys to other origins in scope too
)

var words = [...]string{Default: "", Off: "off", On: "on", Always: "always", CrossOrigin: "cross-origin"}

// ErrUnknown is the error of UnmarshalText for a word that is no Mode.
var ErrUnknown = errors.New("mode: not on, off, always or cross-origin")

// String is the mode's word ("" for Default).
func (m Mode) String() string {
	if int(m) < len(words) {
		return words[m]
	}
	return "mode(?)"
}

// Parse reads a mode's word, exactly as String writes it.
func Parse(word string) (Mode, bool) {
	for m, w := range words {
		if w == word {
			return Mode(m), true
		}
	}
	return Default, false
}

// Or is m, or def when m is Default: the one line of a WithDefaults.
func (m Mode) Or(def Mode) Mode {
	if m == Default {
		return def
	}
	return m
}

// In reports whether m is one of the modes a policy takes.
func (m Mode) In(allowed ...Mode) bool {
	for _, a := range allowed {
		if m == a {
			return true
		}
	}
	return false
}

// MarshalText writes the word, so a Policy's JSON says "on" or "off".
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads the word ("" is Default).
func (m *Mode) UnmarshalText(b []byte) error {
	v, ok := Parse(string(b))
	if !ok {
		return ErrUnknown
	}
	*m = v
	return nil
}
