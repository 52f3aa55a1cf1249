package idempotency

import "strconv"

// Action is what the ledger does with a keyed request.
type Action int

const (
	// Run: no live record holds the key (or a failed one with the same
	// body): claim it pending and run the request.
	Run Action = iota + 1
	// Replay: the recorded answer, with Idempotency-Replayed: true.
	Replay
	// Mismatch: the key was used with another body: ProblemKeyReused (422).
	Mismatch
	// InDoubt: a pending record whose holder is gone; whether it acted is
	// unknown, so it is not run again: ProblemInDoubt (409) until the
	// record's retention ends.
	InDoubt
	// InFlight: a pending record whose holder is alive, in this process or
	// another: the first request is still running. The duplicate is not
	// run and does not wait: ProblemInFlight (409 with Retry-After), and
	// its retry gets what the first request's answer made of the record.
	InFlight
)

func (a Action) String() string {
	names := []string{"run", "replay", "mismatch", "inDoubt", "inFlight"}
	if a >= 1 && int(a) <= len(names) {
		return names[a-1]
	}
	return "Action(" + strconv.Itoa(int(a)) + ")"
}

// Decide is what a request with body fingerprint fp does at now, given the
// record the store holds for its ID (nil for none). A record created before
// Cutoff(now) counts as none. leaseMs is how long a pending record's holder
// counts as alive since its last heartbeat (UpdatedAt); 0 is for a store
// that one process alone writes (the edge's Durable Object), which knows
// which records it is running (InFlight) and passes 0 for the others: a
// pending record that process is not running is in doubt at once.
func (p Policy) Decide(rec *Record, fp string, now, leaseMs int64) Action {
	switch {
	case rec == nil || rec.CreatedAt < p.Cutoff(now):
		return Run
	case rec.Fingerprint != fp:
		return Mismatch
	case rec.State == StateDone:
		return Replay
	case rec.State == StateFailed:
		return Run
	case rec.State == StatePending && leaseMs > 0 && now-rec.UpdatedAt <= leaseMs:
		return InFlight
	}
	// Pending with its holder gone (or a state this version does not
	// know): never run twice.
	return InDoubt
}

// Outcome is what an answer (or its absence) makes of a record.
type Outcome int

const (
	Done    Outcome = iota // definitive: recorded and replayed
	NotDone                // the answer says it did not act: the key is released
	Unknown                // it may or may not have acted: a retry runs again
)

// OutcomeOf classifies an answer's status; answered is false when there was
// none (the upstream unreachable, the handler panicked). The statuses after
// which the browser module retries with the same key (408, 409, 429, 5xx,
// none) are exactly those that are not Done.
func OutcomeOf(status int, answered bool) Outcome {
	switch {
	case !answered:
		return Unknown
	case status == 408 || status == 409 || status == 429 || status == 503:
		return NotDone
	case status >= 500 || status <= 0:
		return Unknown
	}
	return Done
}

// State is the state a record is finished in; release is true when the
// record is deleted instead (NotDone).
func (o Outcome) State() (state string, release bool) {
	switch o {
	case NotDone:
		return "", true
	case Unknown:
		return StateFailed, false
	}
	return StateDone, false
}
