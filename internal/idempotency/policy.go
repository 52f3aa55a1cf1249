package idempotency

import (
	"errors"
	"strconv"

	idem "github.com/gatewaycircuit/gatewaycircuit/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
	"github.com/gatewaycircuit/gatewaycircuit/policy/policyerr"
)

// Defaults, applied in one place: Policy.WithDefaults.
const (
	DefaultMaxEntries      = 64         // past this, the oldest settled entries are evicted
	DefaultDoneRetentionMs = 300_000    // a done entry is forgotten this long after it finished
	DefaultKeyRetentionMs  = 86_400_000 // an unresolved entry is forgotten after this: the gateway's retention
)

// Methods are the methods whose requests carry an Idempotency-Key (in
// scope, when the policy's Mode lets them): the ones a retry could apply
// twice. Before the wasm runs, the shim's gate holds them until Go gives
// their key (js/src/policy.gen.ts KEYED_METHODS).
var Methods = [...]string{"POST", "PUT", "PATCH", "DELETE"}

// Keyed reports whether method (upper case, as fetch sends it) is one of Methods.
func Keyed(method string) bool {
	for _, m := range Methods {
		if m == method {
			return true
		}
	}
	return false
}

// ErrInvalidPolicy is the sentinel for a Policy that fails Validate; the
// error is a *policyerr.Error that names the field.
var ErrInvalidPolicy = errors.New("idempotency: invalid policy")

// Policy is the ledger's configuration, as plain data. Zero fields take the
// defaults above (see WithDefaults).
type Policy struct {
	// Mode is On (the default: keys on in-scope mutations to the page's own
	// origin), CrossOrigin (to other origins in scope too: Idempotency-Key
	// is not a CORS-safelisted header, so such a mutation needs a preflight
	// the API may refuse) or Off (mutations go without keys).
	Mode mode.Mode `json:"mode"`
	// MaxEntries bounds the ledger. Past it, entries are evicted: the
	// oldest done ones first, then the oldest unresolved ones not in
	// flight, then the oldest in flight. It never refuses. Default 64.
	MaxEntries int `json:"maxEntries"`
	// DoneRetentionMs is how long a done entry is kept after it finished, to
	// refuse its key with another body. Default 300 000.
	DoneRetentionMs int64 `json:"doneRetentionMs"`
	// KeyRetentionMs is how long a pending or failed entry is kept after it
	// was created. Set it to the gateway's key retention: past that, a retry
	// with the old key is a new action there anyway. Default 24 h.
	KeyRetentionMs int64 `json:"keyRetentionMs"`
	// Limits bound body fingerprinting (see idempotency.Canonical).
	idem.Limits
}

// WithDefaults returns p with every zero field set to its default.
func (p Policy) WithDefaults() Policy {
	p.Mode = p.Mode.Or(mode.On)
	if p.MaxEntries == 0 {
		p.MaxEntries = DefaultMaxEntries
	}
	if p.DoneRetentionMs == 0 {
		p.DoneRetentionMs = DefaultDoneRetentionMs
	}
	if p.KeyRetentionMs == 0 {
		p.KeyRetentionMs = DefaultKeyRetentionMs
	}
	if p.MaxBytes == 0 {
		p.MaxBytes = idem.DefaultMaxBodyBytes
	}
	if p.MaxDepth == 0 {
		p.MaxDepth = idem.DefaultMaxDepth
	}
	return p
}

// Validate reports the first bad field of a defaulted policy.
func (p Policy) Validate() error {
	if !p.Mode.In(mode.On, mode.Off, mode.CrossOrigin) {
		return policyerr.New(ErrInvalidPolicy, "mode", "must be on, off or cross-origin")
	}
	switch {
	case p.MaxEntries <= 0 || p.MaxEntries > 10_000:
		return policyerr.New(ErrInvalidPolicy, "maxEntries", "must be 1-10000")
	case p.DoneRetentionMs <= 0:
		return policyerr.New(ErrInvalidPolicy, "doneRetentionMs", "must be > 0")
	case p.KeyRetentionMs < p.DoneRetentionMs:
		return policyerr.New(ErrInvalidPolicy, "keyRetentionMs", "must be at least doneRetentionMs ("+strconv.FormatInt(p.DoneRetentionMs, 10)+")")
	case p.MaxBytes <= 0:
		return policyerr.New(ErrInvalidPolicy, "maxBodyBytes", "must be > 0")
	case p.MaxDepth <= 0:
		return policyerr.New(ErrInvalidPolicy, "maxDepth", "must be > 0")
	}
	return nil
}
