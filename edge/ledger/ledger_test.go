//go:build !(js && wasm)

package ledger_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/edge/ledger"
	"github.com/gatewaycircuit/gatewaycircuit/edge/origin"
	"github.com/gatewaycircuit/gatewaycircuit/edge/sqldb"
	"github.com/gatewaycircuit/gatewaycircuit/idempotency"
)

// effects is a fake upstream: each call is an effect; it can hold answers
// or fail without an answer.
type effects struct {
	mu     sync.Mutex
	n      int
	status int
	down   bool
	hold   chan struct{}
}

func (e *effects) Fetch(_ context.Context, req origin.Request) (origin.Response, error) {
	e.mu.Lock()
	e.n++
	n, status, down, hold := e.n, e.status, e.down, e.hold
	e.mu.Unlock()
	if hold != nil {
		<-hold
	}
	if down {
		return origin.Response{}, origin.ErrUnreachable
	}
	if status == 0 {
		status = 201
	}
	h := origin.Header{{"content-type", "application/json"}, {"set-cookie", "x"}}
	if status == 429 {
		h = append(h, [2]string{"retry-after", "1"})
	}
	return origin.Response{Status: status, Header: h, Body: []byte(`{"effect":` + string(rune('0'+n)) + `}`)}, nil
}

func (e *effects) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.n
}

func open(t *testing.T, db sqldb.DB, up origin.Client, now *int64, p idempotency.Policy) *ledger.Ledger {
	t.Helper()
	l, err := ledger.Open(p, db, up, func() int64 { return *now })
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func memory(t *testing.T) *sqldb.Memory {
	db, err := sqldb.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func post(body string) origin.Request {
	return origin.Request{Method: "POST", URL: "https://api.test/orders", Body: []byte(body)}
}

func replayed(r origin.Response) bool {
	return r.Header.Get(strings.ToLower(idempotency.HeaderReplayed)) == "true"
}

func TestReplayConflictAndUnknownOutcome(t *testing.T) {
	now := int64(1_000)
	up := &effects{}
	l := open(t, memory(t), up, &now, idempotency.Policy{})
	ctx := context.Background()

	first := l.Do(ctx, "POST /orders", "k1", post(`{"a":1,"b":[1,2]}`))
	again := l.Do(ctx, "POST /orders", "k1", post(`{ "b": [1,2], "a": 1 }`))
	if first.Status != 201 || replayed(first) || !replayed(again) || string(again.Body) != string(first.Body) {
		t.Fatalf("first %d %v, again %d %v %s", first.Status, replayed(first), again.Status, replayed(again), again.Body)
	}
	if first.Header.Get("set-cookie") != "" {
		t.Fatal("a connection header was recorded")
	}
	for _, body := range []string{`{"a":2,"b":[1,2]}`, `{"a":1,"b":[2,1]}`} {
		if r := l.Do(ctx, "POST /orders", "k1", post(body)); r.Status != 422 {
			t.Fatalf("%s: %d, want 422", body, r.Status)
		}
	}
	if r := l.Do(ctx, "PUT /orders", "k1", post(`{"a":2}`)); r.Status != 201 || replayed(r) {
		t.Fatalf("another operation with the same key: %d %v", r.Status, replayed(r))
	}
	up.down = true
	failed := l.Do(ctx, "POST /orders", "k2", post(`{}`))
	up.down = false
	retry := l.Do(ctx, "POST /orders", "k2", post(`{}`))
	if failed.Status != 502 || retry.Status != 201 || replayed(retry) {
		t.Fatalf("failed forward %d, retry %d %v: an unknown outcome is asked again", failed.Status, retry.Status, replayed(retry))
	}
	if again := l.Do(ctx, "POST /orders", "k2", post(`{}`)); !replayed(again) || again.Status != 201 {
		t.Fatalf("after the retry's answer: %d %v", again.Status, replayed(again))
	}
	if up.count() != 4 {
		t.Fatalf("forwards %d, want 4", up.count())
	}
}

func TestNotDoneReleasesTheKeyAndKeepsRetryAfter(t *testing.T) {
	now := int64(1_000)
	up := &effects{status: 429}
	l := open(t, memory(t), up, &now, idempotency.Policy{})
	ctx := context.Background()
	first := l.Do(ctx, "POST /orders", "k", post(`{}`))
	if first.Status != 429 || first.Header.Get("retry-after") != "1" || l.Len() != 0 {
		t.Fatalf("%d %v, records %d", first.Status, first.Header, l.Len())
	}
	up.status = 0
	if r := l.Do(ctx, "POST /orders", "k", post(`{}`)); r.Status != 201 || replayed(r) || up.count() != 2 {
		t.Fatalf("retry %d %v, forwards %d", r.Status, replayed(r), up.count())
	}
}

// A duplicate of the request in flight is answered 409 at once, whatever
// the first answer turns out to be (as the Go server's ledger answers it);
// its retry gets what that answer made of the record.
func TestDuplicatesInFlightAre409(t *testing.T) {
	for _, status := range []int{201, 503, 500} {
		now := int64(1_000)
		up := &effects{status: status, hold: make(chan struct{})}
		l := open(t, memory(t), up, &now, idempotency.Policy{})
		first := make(chan origin.Response)
		go func() { first <- l.Do(context.Background(), "POST /orders", "k", post(`{"x":1}`)) }()
		for l.Len() == 0 {
			runtimeGosched()
		}
		for range 29 {
			r := l.Do(context.Background(), "POST /orders", "k", post(`{"x":1}`))
			if r.Status != 409 || !strings.Contains(string(r.Body), "idempotency_in_flight") || r.Header.Get("retry-after") != "1" {
				t.Fatalf("%d: duplicate %d %v %s", status, r.Status, r.Header, r.Body)
			}
		}
		if r := l.Do(context.Background(), "POST /orders", "k", post(`{"x":2}`)); r.Status != 422 {
			t.Fatalf("%d: another body in flight: %d", status, r.Status)
		}
		close(up.hold)
		if r := <-first; r.Status != status || replayed(r) {
			t.Fatalf("first %d %v, want %d", r.Status, replayed(r), status)
		}
		if up.count() != 1 || l.Stats.Get(ledger.CountInFlight) != 29 {
			t.Fatalf("%d: forwards %d, in flight %d; want 1, 29", status, up.count(), l.Stats.Get(ledger.CountInFlight))
		}
		// The retry: a replay of a recorded answer, a new forward after a
		// released (503) or unknown (500) one.
		up.hold = nil
		r := l.Do(context.Background(), "POST /orders", "k", post(`{"x":1}`))
		if wantReplay := status == 201; replayed(r) != wantReplay {
			t.Fatalf("%d: retry %d replayed %v", status, r.Status, replayed(r))
		}
	}
}

func TestPendingRecordOfADeadEdgeIsInDoubt(t *testing.T) {
	now := int64(1_000)
	db := memory(t)
	up := &effects{hold: make(chan struct{})}
	dead := open(t, db, up, &now, idempotency.Policy{})
	go dead.Do(context.Background(), "POST /pay", "k", post(`{"eur":10}`)) // never answered
	for up.count() == 0 {
		runtimeGosched()
	}
	restarted := open(t, db, &effects{}, &now, idempotency.Policy{})
	r := restarted.Do(context.Background(), "POST /pay", "k", post(`{"eur":10}`))
	if r.Status != 409 || !strings.Contains(string(r.Body), "idempotency_in_doubt") {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if up.count() != 1 {
		t.Fatal("forwarded again")
	}
	close(up.hold)
}

func TestRetentionAndBound(t *testing.T) {
	now := int64(1_000)
	l := open(t, memory(t), &effects{}, &now, idempotency.Policy{RetentionMs: 10_000, MaxEntries: 3})
	for _, k := range []string{"a", "b", "c", "d"} {
		l.Do(context.Background(), "POST /o", k, post(`{}`))
		now += 1_000
	}
	if l.Len() != 3 {
		t.Fatalf("records %d, want 3 (the oldest finished one dropped)", l.Len())
	}
	now += 20_000
	l.Do(context.Background(), "POST /o", "e", post(`{}`))
	if l.Len() != 1 {
		t.Fatalf("records %d after retention, want 1", l.Len())
	}
}

// The bound holds on read as on write, as the server's ledger keeps it: a
// record finished before two that were pending when it was claimed is
// beyond a bound of 2, and is neither replayed nor compared, though no write
// has pruned it yet.
func TestRecordBeyondTheBoundIsNotReplayed(t *testing.T) {
	now := int64(1_000)
	hold := make(chan struct{})
	up := &effects{hold: hold}
	l := open(t, memory(t), up, &now, idempotency.Policy{MaxEntries: 2})
	var wg sync.WaitGroup
	for i, k := range []string{"a", "b"} {
		wg.Add(1)
		go func() { defer wg.Done(); l.Do(context.Background(), "POST /o", k, post(`{}`)) }()
		for up.count() != i+1 {
			runtimeGosched()
		}
		now += 1_000
	}
	up.mu.Lock()
	up.hold = nil
	up.mu.Unlock()
	if r := l.Do(context.Background(), "POST /o", "c", post(`{}`)); r.Status != 201 || replayed(r) {
		t.Fatalf("c: %d %v", r.Status, replayed(r))
	}
	now += 1_000
	close(hold)
	wg.Wait()
	if l.Len() != 3 {
		t.Fatalf("records %d, want 3 (one beyond the bound of 2)", l.Len())
	}
	for _, k := range []string{"a", "b"} {
		if r := l.Do(context.Background(), "POST /o", k, post(`{}`)); !replayed(r) {
			t.Fatalf("%s, within the bound, was not replayed: %d", k, r.Status)
		}
	}
	if r := l.Do(context.Background(), "POST /o", "c", post(`{"other":1}`)); r.Status != 201 || replayed(r) {
		t.Fatalf("the record beyond the bound still answered: %d %v %s", r.Status, replayed(r), r.Body)
	}
}

func TestBodyTooLarge(t *testing.T) {
	now := int64(0)
	l := open(t, memory(t), &effects{}, &now, idempotency.Policy{MaxBodyBytes: 4})
	if r := l.Do(context.Background(), "POST /o", "k", post(`{"a":1}`)); r.Status != 413 {
		t.Fatalf("%d", r.Status)
	}
}

// The body is compared canonically: another spelling of the same JSON is
// the same body.
func TestBodyIsComparedCanonically(t *testing.T) {
	now := int64(0)
	up := &effects{}
	l := open(t, memory(t), up, &now, idempotency.Policy{})
	l.Do(context.Background(), "POST /o", "k", post(`{"b":1,"a":[true,null]}`))
	if r := l.Do(context.Background(), "POST /o", "k", post(" {\"a\" : [true, null], \"b\": 1.0}")); !replayed(r) || up.count() != 1 {
		t.Fatalf("%d replayed %v, forwards %d", r.Status, replayed(r), up.count())
	}
	if r := l.Do(context.Background(), "POST /o", "k", post(`{"a":[null,true],"b":1}`)); r.Status != 422 {
		t.Fatalf("another body: %d", r.Status)
	}
}

// heldAnswer answers like the worker's client does for a body over the
// request's MaxBodyBytes: status and header, the body held for one caller.
type heldAnswer struct{ effects }

func (h *heldAnswer) Fetch(ctx context.Context, req origin.Request) (origin.Response, error) {
	r, err := h.effects.Fetch(ctx, req)
	if req.MaxBodyBytes <= 0 {
		panic("the ledger asked for an unbounded answer")
	}
	r.Body, r.Held = nil, 7
	return r, err
}

func TestAnswerTooLargeToRecordSettlesTheKey(t *testing.T) {
	now := int64(1_000)
	up := &heldAnswer{}
	l := open(t, memory(t), up, &now, idempotency.Policy{})
	ctx := context.Background()
	first := l.Do(ctx, "POST /export", "k", post(`{}`))
	if first.Status != 201 || first.Held != 7 || first.Header.Get(ledger.HeaderUnrecorded) != "" {
		t.Fatalf("first: %d held %d %v", first.Status, first.Held, first.Header)
	}
	again := l.Do(ctx, "POST /export", "k", post(`{}`))
	if again.Status != 201 || !replayed(again) || again.Held != 0 || len(again.Body) != 0 || again.Header.Get(ledger.HeaderUnrecorded) != "1" ||
		again.Header.Get("content-type") != "application/json" {
		t.Fatalf("replay: %d %v held %d %q", again.Status, again.Header, again.Held, again.Body)
	}
	if up.count() != 1 {
		t.Fatalf("forwards %d, want 1", up.count())
	}
}

// refusing is a database that refuses values over 8 bytes, as a Durable
// Object's SQLite refuses those over 2 MB.
type refusing struct{ sqldb.DB }

func (r refusing) Exec(query string, args ...any) ([][]any, error) {
	for _, a := range args {
		if b, ok := a.([]byte); ok && len(b) > 8 {
			return nil, errors.New("string or blob too big")
		}
	}
	return r.DB.Exec(query, args...)
}

func TestAnswerTheDatabaseRefusesIsRecordedWithoutItsBody(t *testing.T) {
	now := int64(1_000)
	up := &effects{}
	l := open(t, refusing{memory(t)}, up, &now, idempotency.Policy{})
	ctx := context.Background()
	first := l.Do(ctx, "POST /o", "k", post(`{}`))
	again := l.Do(ctx, "POST /o", "k", post(`{}`))
	if first.Status != 201 || len(first.Body) == 0 || again.Status != 201 || !replayed(again) || again.Header.Get(ledger.HeaderUnrecorded) != "1" {
		t.Fatalf("first %d %q, again %d %v: the key must be settled, not in doubt", first.Status, first.Body, again.Status, again.Header)
	}
}
