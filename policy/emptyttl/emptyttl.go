// Package emptyttl is the adaptive TTL for empty results (opt-in): when a GET
// keeps answering an empty collection, the empty answer is reused for a while
// instead of asking again, longer as the streak grows (3 empty in a row: 60 s,
// 5: 120 s), and the first non-empty answer snaps back to no caching.
//
// Only answers from the network count toward a streak; a reused answer does
// not. JS keeps the last empty response of a key while Decide says hit.
// Clear (the user's "try again") forgets every streak. The table is bounded by
// MaxKeys; when full, the key observed least recently is forgotten and
// Evicted counts it. Not safe for concurrent use.
package emptyttl

import (
	"errors"
	"strconv"

	"github.com/gatewaycircuit/gatewaycircuit/policy/lru"
	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
	"github.com/gatewaycircuit/gatewaycircuit/policy/policyerr"
)

// Step says: from Streak empty answers in a row, reuse the answer for TTLMs.
type Step struct {
	Streak int   `json:"streak"`
	TTLMs  int64 `json:"ttlMs"`
}

// DefaultSteps: 3 in a row, 60 s; 5 in a row, 120 s.
var DefaultSteps = []Step{{Streak: 3, TTLMs: 60_000}, {Streak: 5, TTLMs: 120_000}}

// DefaultMaxKeys bounds the keys tracked.
const DefaultMaxKeys = 1_000

// ErrInvalidPolicy is the sentinel for a Policy that fails Validate.
var ErrInvalidPolicy = errors.New("emptyttl: invalid policy")

// Policy configures the adaptive TTL. The zero Policy is off.
type Policy struct {
	// Mode is Off (the default) or On.
	Mode mode.Mode `json:"mode"`
	// Steps, by increasing Streak. Default DefaultSteps.
	Steps []Step `json:"steps"`
	// MaxKeys bounds the keys tracked. Default 1 000.
	MaxKeys int `json:"maxKeys"`
}

// WithDefaults returns p with every zero field set to its default.
func (p Policy) WithDefaults() Policy {
	p.Mode = p.Mode.Or(mode.Off)
	if p.Steps == nil {
		p.Steps = DefaultSteps
	}
	if p.MaxKeys == 0 {
		p.MaxKeys = DefaultMaxKeys
	}
	return p
}

// Validate reports the first bad field of a defaulted policy.
func (p Policy) Validate() error {
	if !p.Mode.In(mode.On, mode.Off) {
		return policyerr.New(ErrInvalidPolicy, "mode", "must be on or off")
	}
	if len(p.Steps) == 0 {
		return policyerr.New(ErrInvalidPolicy, "steps", "must list at least one step")
	}
	prev := 0
	for i, s := range p.Steps {
		switch {
		case s.Streak <= prev:
			return policyerr.New(ErrInvalidPolicy, "steps", "step "+strconv.Itoa(i)+": streak must be > 0 and increasing")
		case s.TTLMs <= 0:
			return policyerr.New(ErrInvalidPolicy, "steps", "step "+strconv.Itoa(i)+": ttlMs must be > 0")
		}
		prev = s.Streak
	}
	if p.MaxKeys <= 0 {
		return policyerr.New(ErrInvalidPolicy, "maxKeys", "must be > 0")
	}
	return nil
}

type entry struct {
	streak  int   // empty answers in a row from the network
	untilMs int64 // reuse the empty answer while now < untilMs
}

// Tracker holds the streaks of one tab.
type Tracker struct {
	policy  Policy
	keys    *lru.List[entry]
	evicted uint64
}

// New returns a Tracker for p (defaulted, then validated).
func New(p Policy) (*Tracker, error) {
	p = p.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Tracker{policy: p, keys: lru.New[entry]()}, nil
}

// Policy returns the defaulted policy in force.
func (t *Tracker) Policy() Policy { return t.policy }

// Decide reports whether a GET for key at nowMs reuses the last empty answer
// (hit), and until when. The deadline read is clamped to now + the longest
// step's TTL, so a clock that went back cannot stretch it.
func (t *Tracker) Decide(nowMs int64, key string) (untilMs int64, hit bool) {
	e, ok := t.keys.Peek(key)
	if !ok {
		return 0, false
	}
	if limit := nowMs + t.longest(); e.untilMs > limit {
		e.untilMs = limit
		t.keys.Put(key, e)
	}
	return e.untilMs, nowMs < e.untilMs
}

func (t *Tracker) longest() (ms int64) {
	for _, s := range t.policy.Steps {
		ms = max(ms, s.TTLMs)
	}
	return ms
}

// Observe takes a successful answer for key from the network. It returns how
// long to reuse it (0: not at all).
func (t *Tracker) Observe(nowMs int64, key string, empty bool) (ttlMs int64) {
	if t.policy.Mode == mode.Off {
		return 0
	}
	if !empty {
		t.keys.Remove(key)
		return 0
	}
	e, _ := t.keys.Peek(key)
	e.streak++
	for _, s := range t.policy.Steps {
		if e.streak >= s.Streak {
			ttlMs = s.TTLMs
		}
	}
	e.untilMs = nowMs + ttlMs
	t.keys.Put(key, e)
	for t.keys.Len() > t.policy.MaxKeys {
		t.keys.RemoveOldest()
		t.evicted++
	}
	return ttlMs
}

// Clear forgets every streak.
func (t *Tracker) Clear() { t.keys.Clear() }

// Evicted counts keys forgotten because the table was full.
func (t *Tracker) Evicted() uint64 { return t.evicted }

// ShortBody is the longest body that can be empty: an empty collection is
// a few bytes, with room for whitespace around it. The glue passes Go a
// body whole only up to this size; of a longer one, only its size.
const ShortBody = 64

// Empty reports whether a JSON body is an empty collection: "[]", "{}",
// "null", or nothing, with any JSON whitespace around and inside, in at
// most ShortBody bytes.
func Empty(body []byte) bool {
	if len(body) > ShortBody {
		return false
	}
	s := trimSpace(body)
	if len(s) == 0 || string(s) == "null" {
		return true
	}
	if len(s) < 2 {
		return false
	}
	first, last := s[0], s[len(s)-1]
	return (first == '[' && last == ']' || first == '{' && last == '}') && len(trimSpace(s[1:len(s)-1])) == 0
}

// trimSpace drops JSON whitespace at both ends.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
