package idem

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// clock is a fake clock for Options.Now.
type clock struct {
	mu sync.Mutex // guards t
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newService(t *testing.T) (*Service, *clock) {
	t.Helper()
	c := &clock{t: time.UnixMilli(1_700_000_000_000)}
	s, err := New(t.TempDir(), Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, c
}

const (
	keyA   = `"8e03978e-40d5-43e8-bc93-6894a57f9324"`
	tea    = `{"item":"tea","qty":2}`
	teaAlt = "{\n  \"qty\": 2.0, \"item\": \"tea\"\n}" // the same order, serialised otherwise
	coffee = `{"item":"coffee","qty":1}`
)

// post sends POST /api/orders to h as principal ("" = none) with the
// Idempotency-Key header value key ("" = none).
func post(h http.Handler, principal, key, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/api/orders", bytes.NewBufferString(body))
	r.Header.Set("Content-Type", "application/json")
	if principal != "" {
		r.Header.Set(PrincipalHeader, principal)
	}
	if key != "" {
		r.Header.Set("Idempotency-Key", key)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func wantStatus(t *testing.T, w *httptest.ResponseRecorder, status int, replayed bool) {
	t.Helper()
	if w.Code != status || (w.Header().Get(ReplayedHeader) == "true") != replayed {
		t.Fatalf("status %d (replayed %q), want %d (replayed %v): %s", w.Code, w.Header().Get(ReplayedHeader), status, replayed, w.Body)
	}
}

func wantOrders(t *testing.T, s *Service, n int) {
	t.Helper()
	if got, err := s.CountOrders(); err != nil || got != n {
		t.Fatalf("orders = %d (%v), want %d", got, err, n)
	}
}

func TestSameKeySameBodyReplays(t *testing.T) {
	s, _ := newService(t)
	first := post(s, "alice", keyA, tea)
	wantStatus(t, first, http.StatusCreated, false)
	again := post(s, "alice", keyA, teaAlt)
	wantStatus(t, again, http.StatusCreated, true)
	if again.Body.String() != first.Body.String() || again.Header().Get("Location") != "/api/orders/1" ||
		again.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("replay %q %v, want %q with the recorded headers", again.Body, again.Header(), first.Body)
	}
	wantOrders(t, s, 1)
}

func TestSameKeyOtherBodyIs422(t *testing.T) {
	s, _ := newService(t)
	wantStatus(t, post(s, "alice", keyA, tea), http.StatusCreated, false)
	w := post(s, "alice", keyA, coffee)
	wantStatus(t, w, http.StatusUnprocessableEntity, false)
	if w.Header().Get("Content-Type") != "application/problem+json" {
		t.Fatalf("422 is not a problem document: %v", w.Header())
	}
	wantOrders(t, s, 1)
}

// hold makes the next claimed request of key wait in beforeWork until the
// returned release is called; started is closed when it is waiting.
func hold(s *Service) (started <-chan struct{}, release func()) {
	st, rel := make(chan struct{}), make(chan struct{})
	var once atomic.Bool
	s.beforeWork = func(string) {
		if once.CompareAndSwap(false, true) {
			close(st)
			<-rel
		}
	}
	return st, func() { close(rel) }
}

func TestSameKeyWhileRunningIs409(t *testing.T) {
	s, _ := newService(t)
	started, release := hold(s)
	done := make(chan *httptest.ResponseRecorder)
	go func() { done <- post(s, "alice", keyA, tea) }()
	<-started
	w := post(s, "alice", keyA, tea)
	wantStatus(t, w, http.StatusConflict, false)
	if w.Header().Get("Retry-After") != "1" {
		t.Fatalf("409 without Retry-After: %v", w.Header())
	}
	wantStatus(t, post(s, "alice", keyA, coffee), http.StatusUnprocessableEntity, false) // the body is checked first
	release()
	wantStatus(t, <-done, http.StatusCreated, false)
	wantStatus(t, post(s, "alice", keyA, tea), http.StatusCreated, true)
	wantOrders(t, s, 1)
}

func TestAuthorizationBeforeReplay(t *testing.T) {
	s, _ := newService(t)
	wantStatus(t, post(s, "alice", keyA, tea), http.StatusCreated, false)
	wantStatus(t, post(s, "", keyA, tea), http.StatusUnauthorized, false)
	wantStatus(t, post(s, "alice bob", keyA, tea), http.StatusUnauthorized, false)
	s.Revoke("alice")
	w := post(s, "alice", keyA, tea)
	wantStatus(t, w, http.StatusForbidden, false)
	if bytes.Contains(w.Body.Bytes(), []byte(`"id"`)) {
		t.Fatalf("a refused request saw the recorded order: %s", w.Body)
	}
	// The key is scoped by principal: bob's same key is bob's own action.
	bob := post(s, "bob", keyA, tea)
	wantStatus(t, bob, http.StatusCreated, false)
	var o order
	if err := json.Unmarshal(bob.Body.Bytes(), &o); err != nil || o.Principal != "bob" || o.ID != 2 {
		t.Fatalf("bob got %s", bob.Body)
	}
	s.Allow("alice")
	wantStatus(t, post(s, "alice", keyA, tea), http.StatusCreated, true)
	wantOrders(t, s, 2)
}

func TestKeysExpireAfterTheRetention(t *testing.T) {
	s, c := newService(t)
	wantStatus(t, post(s, "alice", keyA, tea), http.StatusCreated, false)
	c.Advance(DefaultRetention - time.Millisecond)
	wantStatus(t, post(s, "alice", keyA, tea), http.StatusCreated, true)
	wantStatus(t, post(s, "alice", keyA, coffee), http.StatusUnprocessableEntity, false)
	c.Advance(time.Millisecond)
	wantStatus(t, post(s, "alice", keyA, coffee), http.StatusCreated, false) // a new action
	wantOrders(t, s, 2)
	c.Advance(DefaultRetention)
	if n, err := s.Sweep(); n != 1 || err != nil {
		t.Fatalf("Sweep = %d, %v; want 1 key deleted", n, err)
	}
}

func TestMissingOrMalformedKeyIs400(t *testing.T) {
	s, _ := newService(t)
	for _, key := range []string{"", `8e03978e-40d5-43e8-bc93-6894a57f9324`, `"k";a=1`, `"é"`} {
		wantStatus(t, post(s, "alice", key, tea), http.StatusBadRequest, false)
	}
	r := httptest.NewRequest(http.MethodPost, "/api/orders", bytes.NewBufferString(tea))
	r.Header.Set(PrincipalHeader, "alice")
	r.Header.Add("Idempotency-Key", keyA)
	r.Header.Add("Idempotency-Key", `"other"`)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	wantStatus(t, w, http.StatusBadRequest, false)
	wantOrders(t, s, 0)
}

func TestOversizedBodyIs413(t *testing.T) {
	c := &clock{t: time.UnixMilli(1_700_000_000_000)}
	s, err := New(t.TempDir(), Options{Now: c.Now, MaxBodyBytes: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wantStatus(t, post(s, "alice", keyA, `{"item":"`+strings.Repeat("t", 64)+`","qty":1}`), http.StatusRequestEntityTooLarge, false)
	wantStatus(t, post(s, "alice", keyA, tea), http.StatusCreated, false) // the key was not taken
}

func TestAFinal4xxIsRecordedAndReplayed(t *testing.T) {
	s, _ := newService(t)
	wantStatus(t, post(s, "alice", keyA, `{"item":"tea","qty":0}`), http.StatusBadRequest, false)
	wantStatus(t, post(s, "alice", keyA, `{"qty":0,"item":"tea"}`), http.StatusBadRequest, true)
	wantOrders(t, s, 0)
}

func TestAFailureRollsBackAndReleasesTheKey(t *testing.T) {
	s, _ := newService(t)
	var calls atomic.Int32
	h := s.Idempotent("POST /api/flaky", func(ctx context.Context, tx *sql.Tx, req Request) (Response, error) {
		resp, err := s.createOrder(ctx, tx, req) // the row is written, then the work fails
		switch calls.Add(1) {
		case 1:
			return problemResponse(http.StatusServiceUnavailable, "down", "try again"), nil
		case 2:
			return Response{}, errors.New("disk on fire")
		}
		return resp, err
	})
	wantStatus(t, post(h, "alice", keyA, tea), http.StatusServiceUnavailable, false)
	wantStatus(t, post(h, "alice", keyA, tea), http.StatusInternalServerError, false)
	wantOrders(t, s, 0)
	wantStatus(t, post(h, "alice", keyA, tea), http.StatusCreated, false) // the retry runs again
	wantStatus(t, post(h, "alice", keyA, tea), http.StatusCreated, true)
	wantOrders(t, s, 1)
}

func TestAnAbandonedClaimIsTakenOverAndTheLateCommitRollsBack(t *testing.T) {
	s, c := newService(t)
	started, release := hold(s)
	late := make(chan *httptest.ResponseRecorder)
	go func() { late <- post(s, "alice", keyA, tea) }()
	<-started
	c.Advance(DefaultLease - time.Millisecond)
	wantStatus(t, post(s, "alice", keyA, tea), http.StatusConflict, false)
	c.Advance(time.Millisecond)
	wantStatus(t, post(s, "alice", keyA, tea), http.StatusCreated, false) // took over
	release()
	wantStatus(t, <-late, http.StatusConflict, false) // its claim was gone: rolled back
	wantOrders(t, s, 1)
}

func TestRecordsSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	s, err := New(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, post(s, "alice", keyA, tea), http.StatusCreated, false)
	s.Close()
	if s, err = New(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wantStatus(t, post(s, "alice", keyA, tea), http.StatusCreated, true)
	wantOrders(t, s, 1)
}

func TestAdminEndpoints(t *testing.T) {
	s, _ := newService(t)
	mux := http.NewServeMux()
	s.Register(mux)
	wantStatus(t, post(mux, "alice", keyA, tea), http.StatusCreated, false)
	get := httptest.NewRecorder()
	mux.ServeHTTP(get, httptest.NewRequest(http.MethodGet, "/__admin/orders", nil))
	if get.Body.String() != `{"orders":1,"keys":1}` {
		t.Fatalf("counts = %s", get.Body)
	}
	for _, c := range []struct{ path, body string }{{"/__admin/orders/delay", `{"delayMs":5}`}, {"/__admin/orders/reset", ``}} {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(http.MethodPost, c.path, bytes.NewBufferString(c.body)))
		if w.Code >= 300 {
			t.Fatalf("POST %s = %d %s", c.path, w.Code, w.Body)
		}
	}
	wantOrders(t, s, 0)
	if s.slowness() != 0 {
		t.Fatal("reset left the server slow")
	}
}

// TestFiftyConcurrentRequestsWithOneKey: over real HTTP, 50 requests with
// one key and one body make exactly one order; the other 49 are replays or
// 409s, and none is a 5xx. Rows are counted with a query. The last case runs
// two gateways on one database file, as two processes would.
func TestFiftyConcurrentRequestsWithOneKey(t *testing.T) {
	for _, c := range []struct {
		name     string
		delay    time.Duration
		gateways int
	}{
		{"fast", 0, 1},
		{"slow server (100ms)", 100 * time.Millisecond, 1},
		{"two gateways on one file", 0, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var urls []string
			var first *Service
			for i := 0; i < c.gateways; i++ {
				s, err := New(dir, Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				s.SetDelay(c.delay)
				srv := httptest.NewServer(s)
				defer srv.Close()
				urls = append(urls, srv.URL)
				if first == nil {
					first = s
				}
			}
			const n = 50
			counts := fire(urls, n)
			t.Logf("%d requests: %v", n, counts)
			if counts["201"] != 1 || counts["201 replayed"]+counts["409"] != n-1 {
				t.Fatalf("want one 201 and %d replays or 409s, got %v", n-1, counts)
			}
			var rows int
			if err := first.db.QueryRow(`SELECT COUNT(*) FROM orders WHERE principal = 'alice' AND idempotency_key = ?`,
				"8e03978e-40d5-43e8-bc93-6894a57f9324").Scan(&rows); err != nil || rows != 1 {
				t.Fatalf("rows = %d (%v), want 1", rows, err)
			}
		})
	}
}

// fire sends n identical requests at once, spread over urls, and counts the
// answers by status ("201 replayed" for a replay).
func fire(urls []string, n int) map[string]int {
	var wg sync.WaitGroup
	statuses := make(chan string, n)
	gate := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			req, _ := http.NewRequest(http.MethodPost, urls[i%len(urls)]+"/api/orders", bytes.NewBufferString(tea))
			req.Header.Set(PrincipalHeader, "alice")
			req.Header.Set("Idempotency-Key", keyA)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				statuses <- "error " + err.Error()
				return
			}
			resp.Body.Close()
			kind := strconv.Itoa(resp.StatusCode)
			if resp.Header.Get(ReplayedHeader) == "true" {
				kind += " replayed"
			}
			statuses <- kind
		}()
	}
	close(gate)
	wg.Wait()
	close(statuses)
	counts := map[string]int{}
	for st := range statuses {
		counts[st]++
	}
	return counts
}
