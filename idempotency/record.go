package idempotency

import (
	"errors"

	"github.com/gatewaycircuit/gatewaycircuit/policy/policyerr"
)

// Record states.
const (
	StatePending = "pending" // claimed, not answered yet (or its holder died)
	StateDone    = "done"    // answered: replayed to every retry
	StateFailed  = "failed"  // the effect is unknown: a retry with the same body runs again
)

// HeaderReplayed marks an answer that was recorded earlier (or shared with
// the request in flight), not produced for this request.
const HeaderReplayed = "Idempotency-Replayed"

// ID names a record: the key is scoped by principal and operation.
type ID struct {
	Principal, Operation, Key string
}

// Record is one key's entry. Times are Unix milliseconds.
type Record struct {
	ID
	Fingerprint string
	State       string
	Token       string // which request holds a pending claim
	Status      int
	Header      string // the kept response headers, as the adapter encodes them
	Body        []byte
	CreatedAt   int64
	UpdatedAt   int64 // the holder's last heartbeat while pending
}

// Defaults, applied in one place: Policy.WithDefaults.
const (
	DefaultRetentionMs = 86_400_000 // a record is kept a day
	DefaultMaxEntries  = 10_000     // records per principal
)

// ErrInvalidPolicy is the sentinel for a Policy that fails Validate.
var ErrInvalidPolicy = errors.New("idempotency: invalid policy")

// Policy is a server ledger's bounds; the zero Policy is the default.
type Policy struct {
	// RetentionMs is how long a record is kept. Default 24 h.
	RetentionMs int64 `json:"retentionMs"`
	// MaxEntries bounds the records of one principal; the oldest finished
	// ones go first. Default 10 000.
	MaxEntries int `json:"maxEntries"`
	// MaxBodyBytes bounds a body that can be fingerprinted (413 past it).
	// Default 1 MiB (DefaultMaxBodyBytes, as for Limits).
	MaxBodyBytes int `json:"maxBodyBytes"`
}

// WithDefaults returns p with every zero field set to its default.
func (p Policy) WithDefaults() Policy {
	if p.RetentionMs == 0 {
		p.RetentionMs = DefaultRetentionMs
	}
	if p.MaxEntries == 0 {
		p.MaxEntries = DefaultMaxEntries
	}
	if p.MaxBodyBytes == 0 {
		p.MaxBodyBytes = DefaultMaxBodyBytes
	}
	return p
}

// Validate reports the first bad field of a defaulted policy.
func (p Policy) Validate() error {
	switch {
	case p.RetentionMs <= 0:
		return policyerr.New(ErrInvalidPolicy, "retentionMs", "must be > 0")
	case p.MaxEntries <= 0:
		return policyerr.New(ErrInvalidPolicy, "maxEntries", "must be > 0")
	case p.MaxBodyBytes <= 0:
		return policyerr.New(ErrInvalidPolicy, "maxBodyBytes", "must be > 0")
	}
	return nil
}

// Cutoff is the creation time before which a record is gone at now, whether
// or not a write has pruned it yet.
func (p Policy) Cutoff(now int64) int64 { return now - p.RetentionMs }

// MaxBeforeClaim is how many records of a principal a store keeps when it
// prunes before a claim, so that the claimed one is within MaxEntries.
func (p Policy) MaxBeforeClaim() int { return p.MaxEntries - 1 }
