// Package ledger is the edge's idempotency ledger for one principal, kept in
// the principal's Durable Object (its SQLite database): an adapter over
// package idempotency, which holds the rules the edge shares with the Go
// server's ledger (module ledger). Here a mutation (POST, PUT, PATCH, DELETE) with an
// Idempotency-Key is recorded under (operation, key) — the principal is the
// object itself — before it is forwarded to the origin, which takes the
// place of the server's handler:
//
//   - the same key with the same body replays the recorded answer, marked
//     Idempotency-Replayed; with another body it is refused with 422;
//   - a duplicate that arrives while the first is in flight is answered 409
//     idempotency_in_flight with Retry-After: 1 at once, as the Go server's
//     ledger answers it (its retry gets what the first answer recorded);
//   - an answer that says the request was not acted on (408, 409, 429,
//     503) releases the key: the record is deleted, the answer (with its
//     Retry-After) goes to the caller, and a retry is forwarded as new;
//   - an answer that leaves the effect unknown (another 5xx, or none) is
//     recorded as failed, and a retry with the same body is forwarded
//     again, with the same Idempotency-Key: the origin, which has seen the
//     key, decides whether it acts (exactly once when it honours keys);
//   - one object is the only writer of its records, so a record left
//     pending by an edge that died mid-request (its effect unknown) answers
//     409 "in doubt" at once instead of forwarding again.
//
// An answer is read, recorded and replayed whole only up to MaxBodyBytes
// (the bound of a request's body too): a larger one streams through to its
// caller, and the record keeps its status and header with HeaderUnrecorded
// in place of the body, so the key is settled (never left in doubt) and a
// replay says the body cannot be repeated. Go's wasm memory never shrinks,
// and a Durable Object's SQLite and RPC refuse large values.
//
// Records are kept RetentionMs and at most MaxEntries per principal.
// Authorization is the front worker's: an unknown or revoked principal
// never reaches its ledger.
package ledger

import (
	"context"
	"strings"
	"sync"

	"github.com/gatewaycircuit/gatewaycircuit/edge/origin"
	"github.com/gatewaycircuit/gatewaycircuit/edge/sqldb"
	"github.com/gatewaycircuit/gatewaycircuit/edge/stats"
	"github.com/gatewaycircuit/gatewaycircuit/idempotency"
)

// headerReplayed is idempotency.HeaderReplayed as the edge's headers spell
// names: in lower case.
var headerReplayed = strings.ToLower(idempotency.HeaderReplayed)

// HeaderUnrecorded marks a recorded answer whose body was not kept (larger
// than MaxBodyBytes, or refused by the database): a replay has its status
// and header and no body.
const HeaderUnrecorded = "x-edge-body-unrecorded"

// Counter names.
const (
	CountForwarded = "forwarded" // mutations sent upstream
	CountReplayed  = "replayed"  // answers replayed from a record
	CountInFlight  = "inFlight"  // 409: a duplicate of the request in flight
	CountConflicts = "conflicts" // 422: same key, other body
	CountInDoubt   = "inDoubt"   // 409: pending record of a dead edge
	CountReleased  = "released"  // keys released by an answer that says "not done"
	CountRetried   = "retried"   // forwards of a key whose earlier outcome was unknown
)

const schema = `CREATE TABLE IF NOT EXISTS ledger (
	operation TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, state TEXT NOT NULL,
	status INTEGER, header TEXT, body BLOB, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
	PRIMARY KEY (operation, key))`

// Ledger is the records of one principal.
type Ledger struct {
	policy idempotency.Policy
	db     sqldb.DB
	client origin.Client
	now    func() int64
	Stats  *stats.Set

	// mu makes a request's decision one step: its record read and
	// claimed, and running updated. Never held across a fetch.
	mu      sync.Mutex
	running map[idempotency.ID]bool // the records this object is forwarding
}

// Open returns the Ledger kept in db; p is the config's "ledger" (the zero
// Policy is the default).
func Open(p idempotency.Policy, db sqldb.DB, client origin.Client, now func() int64) (*Ledger, error) {
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
	return &Ledger{policy: p, db: db, client: client, now: now, Stats: st, running: map[idempotency.ID]bool{}}, nil
}

// Do runs one keyed mutation: req is what goes upstream, operation names
// the action (method and path), key is the parsed Idempotency-Key.
func (l *Ledger) Do(ctx context.Context, operation, key string, req origin.Request) origin.Response {
	defer l.Stats.Flush() // mutations are few: their counts are written at once
	fp, err := idempotency.Fingerprint(req.Body, idempotency.Limits{MaxBytes: l.policy.MaxBodyBytes})
	if err != nil {
		return problem(idempotency.FingerprintProblem(err))
	}
	id := idempotency.ID{Operation: operation, Key: key}
	now := l.now()
	l.mu.Lock()
	rec, err := l.get(id, now)
	if err != nil {
		l.mu.Unlock()
		return problem(idempotency.UnavailableProblem(err))
	}
	// The object is the only writer of its records: a pending one is in
	// flight while it forwards it, and was left by an edge that is gone
	// otherwise (lease 0).
	action := l.policy.Decide(rec, fp, now, 0)
	if action == idempotency.InDoubt && l.running[id] {
		action = idempotency.InFlight
	}
	switch action {
	case idempotency.Mismatch:
		l.mu.Unlock()
		l.Stats.Add(CountConflicts, 1)
		return problem(idempotency.ProblemKeyReused)
	case idempotency.InFlight:
		l.mu.Unlock()
		l.Stats.Add(CountInFlight, 1)
		ans := problem(idempotency.ProblemInFlight)
		ans.Header = append(ans.Header, [2]string{"retry-after", "1"})
		return ans
	case idempotency.InDoubt:
		l.mu.Unlock()
		l.Stats.Add(CountInDoubt, 1)
		return problem(idempotency.ProblemInDoubt)
	case idempotency.Replay:
		l.mu.Unlock()
		l.Stats.Add(CountReplayed, 1)
		return replayed(origin.Response{Status: rec.Status, Header: origin.Decode(rec.Header), Body: rec.Body})
	}
	if rec != nil {
		l.Stats.Add(CountRetried, 1) // failed: asked again
	}
	l.prune(now)
	// The record is durable before the request leaves: a Durable Object
	// holds outgoing messages until its writes are stored.
	if _, err := l.db.Exec(`INSERT INTO ledger (operation, key, fingerprint, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (operation, key) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
		operation, key, fp, idempotency.StatePending, now, now); err != nil {
		l.mu.Unlock()
		return problem(idempotency.UnavailableProblem(err))
	}
	l.running[id] = true
	l.mu.Unlock()

	l.Stats.Add(CountForwarded, 1)
	req.MaxBodyBytes = int64(l.policy.MaxBodyBytes)
	ans, err := l.client.Fetch(context.WithoutCancel(ctx), req)
	state, release := idempotency.OutcomeOf(ans.Status, err == nil).State()
	if err != nil {
		ans = problem(idempotency.Problem{Status: 502, Code: "upstream_unreachable", Message: err.Error()})
	}
	ans.Header = origin.Keep(ans.Header)
	kept := ans // what is recorded
	if ans.Held != 0 {
		kept = unrecorded(ans)
	}
	// The record and running change in one step: a duplicate never sees
	// the record pending and not running.
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.running, id)
	if release {
		l.Stats.Add(CountReleased, 1)
		_, _ = l.db.Exec(`DELETE FROM ledger WHERE operation = ? AND key = ?`, operation, key)
	} else if !l.record(id, state, kept) {
		kept = unrecorded(kept)
		l.record(id, state, kept) // without its body: the key is settled all the same
	}
	return ans
}

// record finishes id's record with the answer; false when the database
// refused it (a value too large for it).
func (l *Ledger) record(id idempotency.ID, state string, ans origin.Response) bool {
	_, err := l.db.Exec(`UPDATE ledger SET state = ?, status = ?, header = ?, body = ?, updated_at = ? WHERE operation = ? AND key = ?`,
		state, int64(ans.Status), origin.Encode(ans.Header), ans.Body, l.now(), id.Operation, id.Key)
	return err == nil
}

// unrecorded is ans as it is recorded without its body.
func unrecorded(ans origin.Response) origin.Response {
	return origin.Response{Status: ans.Status, Header: append(append(origin.Header(nil), ans.Header...), [2]string{HeaderUnrecorded, "1"})}
}

// get reads id's record, nil when there is none within retention and the
// bound (a record past either is gone, whether or not a write has pruned it
// yet): a finished record is beyond the bound when it is among the oldest
// finished ones that prune would delete to leave MaxEntries records.
func (l *Ledger) get(id idempotency.ID, now int64) (*idempotency.Record, error) {
	cutoff := l.policy.Cutoff(now)
	rows, err := l.db.Exec(`SELECT fingerprint, state, status, header, body, created_at, updated_at FROM ledger r
		WHERE operation = ? AND key = ? AND created_at >= ? AND NOT (state != ? AND (SELECT count(*) FROM ledger o
			WHERE o.created_at >= ? AND o.state != ? AND (o.updated_at < r.updated_at OR o.updated_at = r.updated_at AND o.rowid <= r.rowid))
		<= (SELECT count(*) FROM ledger WHERE created_at >= ?) - ?)`,
		id.Operation, id.Key, cutoff, idempotency.StatePending, cutoff, idempotency.StatePending, cutoff, int64(l.policy.MaxEntries))
	if err != nil || len(rows) != 1 {
		return nil, err
	}
	r := rows[0]
	return &idempotency.Record{ID: id, Fingerprint: sqldb.String(r[0]), State: sqldb.String(r[1]), Status: int(sqldb.Int(r[2])),
		Header: sqldb.String(r[3]), Body: sqldb.Bytes(r[4]), CreatedAt: sqldb.Int(r[5]), UpdatedAt: sqldb.Int(r[6])}, nil
}

// prune forgets records past their retention, and the oldest finished
// ones (by updated_at, then rowid: the order get reads the bound in) so
// that a claim leaves MaxEntries. Called with mu held.
func (l *Ledger) prune(now int64) {
	_, _ = l.db.Exec(`DELETE FROM ledger WHERE created_at < ?`, l.policy.Cutoff(now))
	_, _ = l.db.Exec(`DELETE FROM ledger WHERE rowid IN (SELECT rowid FROM ledger WHERE state != ? ORDER BY updated_at, rowid
		LIMIT max(0, (SELECT count(*) FROM ledger) - ?))`, idempotency.StatePending, int64(l.policy.MaxBeforeClaim()))
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
	r.Header = append(append(origin.Header(nil), r.Header...), [2]string{headerReplayed, "true"})
	return r
}

// problem is an answer of the ledger's own.
func problem(p idempotency.Problem) origin.Response {
	return origin.Response{
		Status: p.Status,
		Header: origin.Header{{"content-type", "application/json"}, {"cache-control", "no-store"}},
		Body:   p.Body(),
	}
}
