// Package ledgercore is the server side's idempotency ledger rules, in one
// place for both ledgers that keep them: the net/http middleware over
// database/sql (module ledger) and the edge gateway's Durable Object over its
// SQLite (edge/ledger). Each of those is an adapter: it stores records and
// carries requests and answers; what a request with an Idempotency-Key does
// is decided here:
//
//   - a key is scoped by principal and operation (an ID); it is a Structured
//     Field string or a bare token (ParseKey);
//   - the body is compared by its canonical fingerprint, the browser
//     module's (Fingerprint);
//   - the record is written pending before the request runs;
//   - duplicates in the same process join the request in flight and share
//     its answer (Flights); with another body they get 422;
//   - given the stored record, Policy.Decide says: Run (no live record, or a
//     failed one with the same body), Replay (a done record: its answer with
//     Idempotency-Replayed: true), Mismatch (another body: 422), InDoubt (a
//     pending record whose holder is gone: 409, never run twice) or Wait (a
//     pending record whose holder is alive elsewhere);
//   - the answer's status says what becomes of the record (OutcomeOf): kept
//     and replayed (Done), released for a retry to run as new (NotDone: 408,
//     409, 429, 503), or kept as failed so that a retry with the same body
//     runs again (Unknown: another 5xx, or no answer);
//   - records are kept Policy.RetentionMs and at most Policy.MaxEntries per
//     principal (the oldest finished first; a pending one stays until its
//     retention ends), on read as on write: Policy.Cutoff and
//     Policy.MaxBeforeClaim are what the stores filter and prune by.
//
// It uses the standard library only: no SQL driver, no net/http.
package ledgercore

import (
	"errors"

	"github.com/gatewaycircuit/gatewaycircuit/internal/policyerr"
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
	DefaultRetentionMs  = 86_400_000 // a record is kept a day
	DefaultMaxEntries   = 10_000     // records per principal
	DefaultMaxBodyBytes = 1 << 20    // larger bodies are refused with 413
)

// ErrInvalidPolicy is the sentinel for a Policy that fails Validate.
var ErrInvalidPolicy = errors.New("ledger: invalid policy")

// Policy is the ledger's bounds; the zero Policy is the default.
type Policy struct {
	// RetentionMs is how long a record is kept. Default 24 h.
	RetentionMs int64 `json:"retentionMs"`
	// MaxEntries bounds the records of one principal; the oldest finished
	// ones go first. Default 10 000.
	MaxEntries int `json:"maxEntries"`
	// MaxBodyBytes bounds a body that can be fingerprinted. Default 1 MiB.
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
