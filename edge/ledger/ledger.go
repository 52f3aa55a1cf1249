// Package ledger is the edge's idempotency ledger for one principal, kept in
// the principal's Durable Object (its SQLite database). A mutation (POST,
// PUT, PATCH, DELETE) with an Idempotency-Key is recorded under
// (operation, key) — the principal is the object itself — before it is
// forwarded, so that:
//
//   - the same key with the same body (compared by the canonical JSON
//     fingerprint the browser module uses: object keys sorted, arrays in
//     order) replays the recorded answer, marked Idempotency-Replayed;
//   - the same key with another body is refused with 422;
//   - duplicates that arrive while the first is in flight wait for it and
//     share its answer;
//   - an answer that says the request was not acted on (408, 409, 429,
//     503) releases the key: the record is deleted, the answer (with its
//     Retry-After) goes to the caller, and a retry is forwarded as new;
//   - an answer that leaves the effect unknown (another 5xx, or none) is
//     recorded as unknown, and a retry with the same body is forwarded
//     again, with the same Idempotency-Key: the origin, which has seen the
//     key, decides whether it acts (exactly once when it honours keys);
//   - a record left pending by an edge that died mid-request (its effect
//     unknown) answers 409 "in doubt" instead of forwarding again.
//
// Records are kept for RetentionMs and at most MaxEntries per principal.
// Authorization is the front worker's: an unknown or revoked principal
// never reaches its ledger.
package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"

	"github.com/gatewaycircuit/gatewaycircuit/edge/origin"
	"github.com/gatewaycircuit/gatewaycircuit/edge/sqldb"
	"github.com/gatewaycircuit/gatewaycircuit/edge/stats"
	"github.com/gatewaycircuit/gatewaycircuit/internal/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/internal/policyerr"
)

// Defaults, applied in one place: Policy.WithDefaults.
const (
	DefaultRetentionMs  = 86_400_000 // a record is kept a day
	DefaultMaxEntries   = 10_000     // records per principal
	DefaultMaxBodyBytes = 1 << 20    // larger bodies are refused with 413
)

// HeaderReplayed marks an answer that was recorded earlier (or shared with
// the request in flight), not produced for this request.
const HeaderReplayed = "idempotency-replayed"

// Counter names.
const (
	CountForwarded = "forwarded" // mutations sent upstream
	CountReplayed  = "replayed"  // answers replayed from a record
	CountJoined    = "joined"    // duplicates that waited for the one in flight
	CountConflicts = "conflicts" // 422: same key, other body
	CountInDoubt   = "inDoubt"   // 409: pending record of a dead edge
	CountReleased  = "released"  // keys released by an answer that says "not done"
	CountRetried   = "retried"   // forwards of a key whose earlier outcome was unknown
)

// ErrInvalidPolicy is the sentinel for a Policy that fails Validate.
var ErrInvalidPolicy = errors.New("ledger: invalid policy")

// Policy is the ledger's configuration; the zero Policy is the default.
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

const schema = `CREATE TABLE IF NOT EXISTS ledger (
	operation TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, state TEXT NOT NULL,
	status INTEGER, header TEXT, body BLOB, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
	PRIMARY KEY (operation, key))`

// Record states.
const (
	pending = "pending" // forwarded, no answer yet (or the edge died waiting)
	done    = "done"    // answered: replayed to every retry
	unknown = "failed"  // the effect is unknown (5xx, no answer): a retry is forwarded again
)

// Outcome is what an upstream answer (or its absence) makes of a record.
type Outcome int

const (
	Done    Outcome = iota // definitive: recorded and replayed
	NotDone                // the upstream says it did not act: the key is released
	Unknown                // it may or may not have acted: the next retry asks again
)

// OutcomeOf classifies an answer's status; answered is false when there was
// none. The statuses after which the browser module retries with the same
// key (408, 409, 429, 5xx, none) are exactly those that are not Done.
func OutcomeOf(status int, answered bool) Outcome {
	switch {
	case !answered:
		return Unknown
	case status == 408 || status == 409 || status == 429 || status == 503:
		return NotDone
	case idempotency.Outcome(status) == idempotency.Failed:
		return Unknown
	}
	return Done
}

// Ledger is the records of one principal.
type Ledger struct {
	policy Policy
	db     sqldb.DB
	client origin.Client
	now    func() int64
	Stats  *stats.Set

	mu      sync.Mutex         // guards flights; never held across a fetch
	flights map[string]*flight // operation+"\n"+key → the forward in flight
}

type flight struct {
	fingerprint string
	done        chan struct{} // closed when res is set
	res         origin.Response
}

// Open returns the Ledger kept in db.
func Open(p Policy, db sqldb.DB, client origin.Client, now func() int64) (*Ledger, error) {
	p = p.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := sqldb.MustExec(db, schema); err != nil {
		return nil, err
	}
	st, err := stats.Open(db, now)
	if err != nil {
		return nil, err
	}
	return &Ledger{policy: p, db: db, client: client, now: now, Stats: st, flights: map[string]*flight{}}, nil
}

// Fingerprint is the body's identity: the canonical form of
// idempotency.Canonical (the browser module's), hashed with SHA-256.
func (l *Ledger) Fingerprint(body []byte) (string, error) {
	canon, isJSON, err := idempotency.Canonical(body, idempotency.Limits{MaxBytes: l.policy.MaxBodyBytes})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canon)
	kind := "b:"
	if isJSON {
		kind = "j:"
	}
	return kind + hex.EncodeToString(sum[:]), nil
}

// Do runs one keyed mutation: req is what goes upstream, operation names
// the action (method and path), key is the parsed Idempotency-Key.
func (l *Ledger) Do(ctx context.Context, operation, key string, req origin.Request) origin.Response {
	defer l.Stats.Flush() // mutations are few: their counts are written at once
	fp, err := l.Fingerprint(req.Body)
	if err != nil {
		if errors.Is(err, idempotency.ErrTooLarge) {
			return problem(413, "body_too_large", err.Error())
		}
		return problem(400, "body_not_fingerprintable", err.Error())
	}
	id := operation + "\n" + key
	now := l.now()
	l.mu.Lock()
	if f := l.flights[id]; f != nil {
		l.mu.Unlock()
		if f.fingerprint != fp {
			l.Stats.Add(CountConflicts, 1)
			return problem(422, "idempotency_key_reused", "the key was used with another body")
		}
		l.Stats.Add(CountJoined, 1)
		select {
		case <-f.done:
			return replayed(f.res)
		case <-ctx.Done():
			return problem(409, "idempotency_in_flight", "the first request with this key is still in flight")
		}
	}
	// A record past its retention is gone, whether or not a write has
	// pruned it yet.
	rows, err := l.db.Exec(`SELECT fingerprint, state, status, header, body FROM ledger WHERE operation = ? AND key = ? AND created_at >= ?`,
		operation, key, now-l.policy.RetentionMs)
	if err != nil {
		l.mu.Unlock()
		return problem(500, "ledger_unavailable", err.Error())
	}
	if len(rows) == 1 {
		r := rows[0]
		switch {
		case sqldb.String(r[0]) != fp:
			l.mu.Unlock()
			l.Stats.Add(CountConflicts, 1)
			return problem(422, "idempotency_key_reused", "the key was used with another body")
		case sqldb.String(r[1]) == pending:
			// Recorded before forwarding by an edge that is gone: whether
			// the upstream saw it is unknown, so it is not sent again.
			l.mu.Unlock()
			l.Stats.Add(CountInDoubt, 1)
			return problem(409, "idempotency_in_doubt", "an earlier request with this key was cut off; its outcome is unknown")
		case sqldb.String(r[1]) == done:
			l.mu.Unlock()
			l.Stats.Add(CountReplayed, 1)
			return replayed(origin.Response{Status: int(sqldb.Int(r[2])), Header: origin.Decode(sqldb.String(r[3])), Body: sqldb.Bytes(r[4])})
		}
		l.Stats.Add(CountRetried, 1) // unknown: asked again, below
	}
	l.prune(now)
	// The record is durable before the request leaves: a Durable Object
	// holds outgoing messages until its writes are stored.
	if _, err := l.db.Exec(`INSERT INTO ledger (operation, key, fingerprint, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (operation, key) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
		operation, key, fp, pending, now, now); err != nil {
		l.mu.Unlock()
		return problem(500, "ledger_unavailable", err.Error())
	}
	f := &flight{fingerprint: fp, done: make(chan struct{})}
	l.flights[id] = f
	l.mu.Unlock()

	l.Stats.Add(CountForwarded, 1)
	ans, err := l.client.Fetch(context.WithoutCancel(ctx), req)
	outcome := OutcomeOf(ans.Status, err == nil)
	if err != nil {
		ans = problem(502, "upstream_unreachable", err.Error())
	}
	ans.Header = origin.Keep(ans.Header)
	switch outcome {
	case NotDone:
		l.Stats.Add(CountReleased, 1)
		_, _ = l.db.Exec(`DELETE FROM ledger WHERE operation = ? AND key = ?`, operation, key)
	default:
		state := done
		if outcome == Unknown {
			state = unknown
		}
		_, _ = l.db.Exec(`UPDATE ledger SET state = ?, status = ?, header = ?, body = ?, updated_at = ? WHERE operation = ? AND key = ?`,
			state, int64(ans.Status), origin.Encode(ans.Header), ans.Body, l.now(), operation, key)
	}

	l.mu.Lock()
	f.res = ans
	delete(l.flights, id)
	l.mu.Unlock()
	close(f.done)
	return ans
}

// prune forgets records past their retention, and the oldest finished
// ones beyond MaxEntries. Called with mu held.
func (l *Ledger) prune(now int64) {
	_, _ = l.db.Exec(`DELETE FROM ledger WHERE created_at < ?`, now-l.policy.RetentionMs)
	_, _ = l.db.Exec(`DELETE FROM ledger WHERE rowid IN (SELECT rowid FROM ledger WHERE state != ? ORDER BY updated_at
		LIMIT max(0, (SELECT count(*) FROM ledger) - ?))`, pending, int64(l.policy.MaxEntries-1))
}

// Len is the number of records.
func (l *Ledger) Len() int {
	rows, _ := l.db.Exec(`SELECT count(*) FROM ledger`)
	if len(rows) != 1 {
		return 0
	}
	return int(sqldb.Int(rows[0][0]))
}

func replayed(r origin.Response) origin.Response {
	r.Header = append(append(origin.Header(nil), r.Header...), [2]string{HeaderReplayed, "true"})
	return r
}

// problem is an answer of the edge's own, as a small JSON body.
func problem(status int, code, message string) origin.Response {
	return origin.Response{
		Status: status,
		Header: origin.Header{{"content-type", "application/json"}, {"cache-control", "no-store"}},
		Body:   []byte(`{"error":` + quote(code) + `,"message":` + quote(message) + `}`),
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
