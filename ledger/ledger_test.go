package ledger_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver

	"github.com/gatewaycircuit/gatewaycircuit/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/ledger"
)

// The conformance suite: every rule of the package comment, on each store.
var stores = map[string]func(t *testing.T) ledger.Store{
	"sqlite-memory": func(t *testing.T) ledger.Store {
		db, err := sql.Open("sqlite", "file:"+strings.ReplaceAll(t.Name(), "/", "_")+"?mode=memory&cache=shared")
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		t.Cleanup(func() { db.Close() })
		return newStore(t, db, ledger.SQLite)
	},
	"sqlite-file": func(t *testing.T) ledger.Store {
		db, err := sql.Open("sqlite", ledger.SQLiteDSN(filepath.Join(t.TempDir(), "ledger.sqlite")))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return newStore(t, db, ledger.SQLite)
	},
	"postgres": func(t *testing.T) ledger.Store { return newStore(t, postgresDB(t), ledger.Postgres) },
}

func newStore(t *testing.T, db *sql.DB, d ledger.Dialect) ledger.Store {
	t.Helper()
	s, err := ledger.NewSQLStore(context.Background(), db, d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) { c.run(t, open(t)) })
			}
		})
	}
}

// app is a handler whose every run is an effect; it can hold its answers.
type app struct {
	mu      sync.Mutex
	n       int
	status  int
	hold    chan struct{}
	started chan struct{} // receives once per run, when set
}

func (a *app) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	a.mu.Lock()
	a.n++
	n, status, hold, started := a.n, a.status, a.hold, a.started
	a.mu.Unlock()
	if started != nil {
		started <- struct{}{}
	}
	if hold != nil {
		<-hold
	}
	if status == 0 {
		status = 201
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Set-Cookie", "session=x")
	if status == 429 {
		w.Header().Set("Retry-After", "7")
	}
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"effect":%d,"body":%q}`, n, body)
}

func (a *app) effects() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n
}

// clock is a settable time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// server is one process's view: a ledger over the store, in front of h.
func server(t *testing.T, s ledger.Store, h http.Handler, tune func(*ledger.Options)) http.Handler {
	t.Helper()
	o := ledger.Options{Store: s, Principal: func(r *http.Request) (string, bool) {
		p := r.Header.Get("X-User")
		return p, p != ""
	}}
	if tune != nil {
		tune(&o)
	}
	l, err := ledger.New(o)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /orders", l.Wrap(h))
	mux.Handle("PUT /orders", l.Wrap(h))
	mux.Handle("POST /pay", l.WrapNamed("payment", h))
	return mux
}

type result struct {
	status   int
	header   http.Header
	body     string
	replayed bool
}

func send(h http.Handler, method, path, user, key, body string) result {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if user != "" {
		r.Header.Set("X-User", user)
	}
	if key != "" {
		r.Header.Set("Idempotency-Key", key)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return result{w.Code, w.Header(), w.Body.String(), w.Header().Get(idempotency.HeaderReplayed) == "true"}
}

func errorCode(r result) string {
	var p struct{ Error string }
	_ = json.Unmarshal([]byte(r.body), &p)
	return p.Error
}

var cases = []struct {
	name string
	run  func(t *testing.T, s ledger.Store)
}{
	{"replay, conflict, canonical body, operations", func(t *testing.T, s ledger.Store) {
		a := &app{}
		h := server(t, s, a, nil)
		first := send(h, "POST", "/orders", "ann", `"k1"`, `{"a":1,"b":[1,2]}`)
		again := send(h, "POST", "/orders", "ann", `k1`, `{ "b": [1,2], "a": 1 }`) // bare token, same key
		if first.status != 201 || first.replayed || !again.replayed || again.status != 201 || again.body != first.body {
			t.Fatalf("first %+v\nagain %+v", first, again)
		}
		if again.header.Get("Set-Cookie") != "" || again.header.Get("Content-Type") != "application/json" {
			t.Fatalf("recorded headers %v", again.header)
		}
		for _, body := range []string{`{"a":2,"b":[1,2]}`, `{"a":1,"b":[2,1]}`} {
			if r := send(h, "POST", "/orders", "ann", `"k1"`, body); r.status != 422 || errorCode(r) != "idempotency_key_reused" {
				t.Fatalf("%s: %+v", body, r)
			}
		}
		if r := send(h, "PUT", "/orders", "ann", `"k1"`, `{"a":2}`); r.status != 201 || r.replayed {
			t.Fatalf("another operation, same key: %+v", r)
		}
		if r := send(h, "POST", "/orders", "bob", `"k1"`, `{"a":2}`); r.status != 201 || r.replayed {
			t.Fatalf("another principal, same key: %+v", r)
		}
		if a.effects() != 3 {
			t.Fatalf("effects %d, want 3", a.effects())
		}
	}},
	{"no principal is the app's 401, before any replay", func(t *testing.T, s ledger.Store) {
		a := &app{}
		h := server(t, s, a, func(o *ledger.Options) {
			o.Unauthorized = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(401); io.WriteString(w, "app says no") })
		})
		send(h, "POST", "/orders", "ann", `"k"`, `{}`)
		if r := send(h, "POST", "/orders", "", `"k"`, `{}`); r.status != 401 || r.body != "app says no" || r.replayed {
			t.Fatalf("%+v", r)
		}
	}},
	{"bad keys, a missing key, a large body", func(t *testing.T, s ledger.Store) {
		a := &app{}
		h := server(t, s, a, func(o *ledger.Options) { o.MaxBodyBytes = 8 })
		for _, k := range []string{`"unterminated`, `a b`, `a,b`, strings.Repeat("x", 300), "é"} {
			if r := send(h, "POST", "/orders", "ann", k, `{}`); r.status != 400 || errorCode(r) != "invalid_idempotency_key" {
				t.Fatalf("key %q: %+v", k, r)
			}
		}
		if r := send(h, "POST", "/orders", "ann", `"k"`, `{"a":"0123456789"}`); r.status != 413 {
			t.Fatalf("large body: %+v", r)
		}
		if r := send(h, "POST", "/orders", "ann", "", `{}`); r.status != 201 || a.effects() != 1 {
			t.Fatalf("no key runs unrecorded: %+v", r)
		}
		strict := server(t, s, a, func(o *ledger.Options) { o.RequireKey = true })
		if r := send(strict, "POST", "/orders", "ann", "", `{}`); r.status != 400 {
			t.Fatalf("RequireKey: %+v", r)
		}
		if r := send(strict, "GET", "/orders", "ann", "", ``); r.status == 400 {
			t.Fatalf("a GET is not a mutation: %+v", r)
		}
	}},
	{"an unknown outcome runs again; a not-done answer releases the key", func(t *testing.T, s ledger.Store) {
		a := &app{status: 500}
		h := server(t, s, a, nil)
		failed := send(h, "POST", "/orders", "ann", `"k2"`, `{}`)
		a.status = 0
		retry := send(h, "POST", "/orders", "ann", `"k2"`, `{}`)
		again := send(h, "POST", "/orders", "ann", `"k2"`, `{}`)
		if failed.status != 500 || retry.status != 201 || retry.replayed || !again.replayed || a.effects() != 2 {
			t.Fatalf("failed %+v, retry %+v, again %+v, effects %d", failed, retry, again, a.effects())
		}
		a.status = 429
		limited := send(h, "POST", "/orders", "ann", `"k3"`, `{}`)
		if n, _ := s.Count(context.Background(), "ann"); limited.status != 429 || limited.header.Get("Retry-After") != "7" || n != 1 {
			t.Fatalf("429 %+v, records %d (want the key released)", limited, n)
		}
		a.status = 0
		if r := send(h, "POST", "/orders", "ann", `"k3"`, `{}`); r.status != 201 || r.replayed || a.effects() != 4 {
			t.Fatalf("after the release: %+v, effects %d", r, a.effects())
		}
	}},
	{"a panic is an unknown outcome, answered 500", func(t *testing.T, s ledger.Store) {
		n := 0
		h := server(t, s, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n++
			if n == 1 {
				w.WriteHeader(201)
				panic("boom")
			}
			w.WriteHeader(201)
		}), nil)
		if r := send(h, "POST", "/orders", "ann", `"k"`, `{}`); r.status != 500 || errorCode(r) != "handler_failed" || r.replayed {
			t.Fatalf("the panic: %+v", r)
		}
		if r := send(h, "POST", "/orders", "ann", `"k"`, `{}`); r.status != 201 || r.replayed || n != 2 {
			t.Fatalf("%+v, runs %d", r, n)
		}
	}},
	{"concurrent duplicates in one process are 409 in flight", func(t *testing.T, s ledger.Store) {
		for _, status := range []int{201, 503, 500} {
			duplicates(t, s, status, 30, 1)
		}
	}},
	{"duplicates through two processes are 409 in flight", func(t *testing.T, s ledger.Store) {
		for _, status := range []int{201, 503, 500} {
			duplicates(t, s, status, 20, 2)
		}
	}},
	{"a record pending after a crash is in doubt, never run again", func(t *testing.T, s ledger.Store) {
		c := &clock{t: time.Unix(1_000_000, 0)}
		a := &app{}
		h := server(t, s, a, func(o *ledger.Options) { o.Now = c.now })
		fp, _ := idempotency.Fingerprint([]byte(`{"eur":10}`), idempotency.Limits{})
		// What a process leaves that claimed the key and died in the handler.
		dead := idempotency.Record{ID: idempotency.ID{Principal: "ann", Operation: "payment", Key: "k"}, Fingerprint: fp,
			Token: "dead", CreatedAt: c.now().UnixMilli(), UpdatedAt: c.now().UnixMilli()}
		if ok, err := s.Claim(context.Background(), dead, 0); !ok || err != nil {
			t.Fatal(ok, err)
		}
		c.add(ledger.DefaultLease + time.Second)
		for range 2 {
			r := send(h, "POST", "/pay", "ann", `"k"`, `{"eur":10}`)
			if r.status != 409 || errorCode(r) != "idempotency_in_doubt" {
				t.Fatalf("%+v", r)
			}
		}
		if r := send(h, "POST", "/pay", "ann", `"k"`, `{"eur":11}`); r.status != 422 {
			t.Fatalf("another body: %+v", r)
		}
		if a.effects() != 0 {
			t.Fatal("run again")
		}
		c.add(ledger.DefaultRetention)
		if r := send(h, "POST", "/pay", "ann", `"k"`, `{"eur":10}`); r.status != 201 || a.effects() != 1 {
			t.Fatalf("after retention: %+v", r)
		}
	}},
	{"retention and the bound per principal, on read and on write", func(t *testing.T, s ledger.Store) {
		c := &clock{t: time.Unix(1_000_000, 0)}
		a := &app{}
		h := server(t, s, a, func(o *ledger.Options) { o.Now, o.Retention, o.MaxEntries = c.now, 10*time.Second, 3 })
		for _, k := range []string{`"a"`, `"b"`, `"c"`, `"d"`} {
			send(h, "POST", "/orders", "ann", k, `{}`)
			c.add(time.Second)
		}
		send(h, "POST", "/orders", "bob", `"a"`, `{}`)
		if n, _ := s.Count(context.Background(), "ann"); n != 3 {
			t.Fatalf("ann's records %d, want 3 (the oldest finished one dropped)", n)
		}
		if r := send(h, "POST", "/orders", "ann", `"a"`, `{}`); r.replayed {
			t.Fatal("a dropped record was replayed")
		}
		c.add(20 * time.Second)
		// Read: the expired record is not replayed nor compared, before
		// any write prunes it.
		if r := send(h, "POST", "/orders", "ann", `"c"`, `{"other":1}`); r.status != 201 || r.replayed {
			t.Fatalf("an expired record still answered: %+v", r)
		}
		if n, _ := s.Count(context.Background(), "ann"); n != 1 {
			t.Fatalf("ann's records %d after retention, want 1", n)
		}
		if n, _ := s.Count(context.Background(), "bob"); n != 1 {
			t.Fatalf("bob's records %d: another principal's bound is his own", n)
		}
	}},
	{"a record beyond the bound is not replayed, before any write prunes it", func(t *testing.T, s ledger.Store) {
		c := &clock{t: time.Unix(1_000_000, 0)}
		tune := func(o *ledger.Options) { o.Now, o.MaxEntries = c.now, 2 }
		held := &app{hold: make(chan struct{}), started: make(chan struct{}, 2)}
		slow, fast := server(t, s, held, tune), server(t, s, &app{}, tune)
		var wg sync.WaitGroup
		for _, k := range []string{`"a"`, `"b"`} {
			wg.Add(1)
			go func() { defer wg.Done(); send(slow, "POST", "/orders", "ann", k, `{}`) }()
			<-held.started
			c.add(time.Second)
		}
		// a and b are pending, which no write prunes: c's claim leaves
		// three records, and a and b finish after it.
		if r := send(fast, "POST", "/orders", "ann", `"c"`, `{}`); r.status != 201 || r.replayed {
			t.Fatalf("c: %+v", r)
		}
		c.add(time.Second)
		close(held.hold)
		wg.Wait()
		if n, _ := s.Count(context.Background(), "ann"); n != 3 {
			t.Fatalf("ann's records %d, want 3 (one beyond the bound of 2)", n)
		}
		for _, k := range []string{`"a"`, `"b"`} {
			if r := send(fast, "POST", "/orders", "ann", k, `{}`); !r.replayed {
				t.Fatalf("%s, within the bound, was not replayed: %+v", k, r)
			}
		}
		// Read: c is neither replayed nor compared.
		if r := send(fast, "POST", "/orders", "ann", `"c"`, `{"other":1}`); r.status != 201 || r.replayed {
			t.Fatalf("the record beyond the bound still answered: %+v", r)
		}
	}},
}

// checkOne: one effect, and every caller got its answer (one fresh, the
// rest marked replayed).
// checkOne checks the answers to concurrent duplicates: one run, whose
// answer (status) is the one not refused; the others are refused 409
// idempotency_in_flight with Retry-After, or (arrived after it was
// recorded) its replay.
func checkOne(t *testing.T, answers []result, status, effects int) {
	t.Helper()
	var first *result
	for i, a := range answers {
		if a.status == status && !a.replayed {
			if first != nil {
				t.Fatalf("two unreplayed answers: %+v and %+v", *first, a)
			}
			first = &answers[i]
		}
	}
	if effects != 1 || first == nil {
		t.Fatalf("status %d: effects %d, first answer %v; want 1 run and its answer", status, effects, first)
	}
	for i, a := range answers {
		switch {
		case &answers[i] == first:
		case a.status == 409 && errorCode(a) == "idempotency_in_flight" && a.header.Get("Retry-After") == "1":
		case a.status == status && a.replayed && a.body == first.body:
		default:
			t.Fatalf("answer %d of %d: %+v (status %d)", i, len(answers), a, status)
		}
	}
}

// duplicates holds a first request in its handler, which then answers
// status, and sends n-1 concurrent duplicates, spread in turn over the
// given number of servers (processes) on one store: the handler runs
// once, whatever it answers.
func duplicates(t *testing.T, s ledger.Store, status, n, processes int) {
	key := `"k` + fmt.Sprint(status) + `"`
	a := &app{status: status, hold: make(chan struct{}), started: make(chan struct{}, 100)}
	servers := make([]http.Handler, processes)
	for i := range servers {
		servers[i] = server(t, s, a, nil)
	}
	answers := make([]result, n)
	first := make(chan struct{})
	go func() { defer close(first); answers[0] = send(servers[0], "POST", "/orders", "ann", key, `{"x":1}`) }()
	<-a.started
	// The duplicates are answered while the first is held: none waits.
	var wg sync.WaitGroup
	for i := 1; i < n; i++ {
		h := servers[i%processes]
		wg.Add(1)
		go func() { defer wg.Done(); answers[i] = send(h, "POST", "/orders", "ann", key, `{"x":1}`) }()
	}
	wg.Wait()
	close(a.hold)
	<-first
	checkOne(t, answers, status, a.effects())
}
