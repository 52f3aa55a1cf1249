//go:build !(js && wasm)

package cache_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/edge/cache"
	"github.com/gatewaycircuit/gatewaycircuit/edge/origin"
	"github.com/gatewaycircuit/gatewaycircuit/edge/sqldb"
)

// upstream is a fake origin: per path a status (0: 200), body and
// Retry-After; it counts calls and can hold answers until released.
type upstream struct {
	mu      sync.Mutex
	answers map[string]origin.Response
	down    bool // every call fails with no answer
	calls   map[string]int
	hold    chan struct{} // when set, Fetch waits for it to close
}

func newUpstream() *upstream {
	return &upstream{answers: map[string]origin.Response{}, calls: map[string]int{}}
}

func (u *upstream) Fetch(_ context.Context, req origin.Request) (origin.Response, error) {
	u.mu.Lock()
	path := strings.TrimPrefix(req.URL, "https://api.test")
	u.calls[path]++
	a, ok := u.answers[path]
	down, hold := u.down, u.hold
	u.mu.Unlock()
	if hold != nil {
		<-hold
	}
	if down {
		return origin.Response{}, origin.ErrUnreachable
	}
	if !ok {
		a = origin.Response{Status: 200, Body: []byte(`{"path":"` + path + `"}`)}
	}
	return a, nil
}

func (u *upstream) set(path string, status int, body, retryAfter string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	h := origin.Header{{"content-type", "application/json"}}
	if retryAfter != "" {
		h = append(h, [2]string{"retry-after", retryAfter})
	}
	u.answers[path] = origin.Response{Status: status, Header: h, Body: []byte(body)}
}

func (u *upstream) count(path string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.calls[path]
}

type fixture struct {
	t   *testing.T
	db  *sqldb.Memory
	up  *upstream
	now int64
	svc *cache.Service
	p   cache.Policy
}

func newFixture(t *testing.T, p cache.Policy) *fixture {
	db, err := sqldb.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &fixture{t: t, db: db, up: newUpstream(), now: 1_700_000_000_000, p: p}
	f.reopen()
	return f
}

// reopen is a restart: a new Service over the same database.
func (f *fixture) reopen() {
	svc, err := cache.Open(f.p, cache.Options{Name: "api", Upstream: "https://api.test", DB: f.db, Client: f.up, Now: func() int64 { return f.now }})
	if err != nil {
		f.t.Fatal(err)
	}
	f.svc = svc
}

func (f *fixture) get(key string) origin.Response { return f.svc.Get(context.Background(), key, "") }

// step is one line of a script: move the clock, GET a path, check the
// answer's cache status (and Age/Retry-After when given) and the upstream
// calls for that path so far.
type step struct {
	advance    int64
	path       string
	cache      string
	age        string
	retryAfter string
	calls      int
	do         func(f *fixture)
}

func run(t *testing.T, p cache.Policy, steps []step) *fixture {
	t.Helper()
	f := newFixture(t, p)
	for i, s := range steps {
		f.now += s.advance
		if s.do != nil {
			s.do(f)
		}
		if s.path == "" {
			continue
		}
		res := f.get(s.path)
		got := res.Header.Get(cache.HeaderCache)
		if got != s.cache || (s.age != "" && res.Header.Get("age") != s.age) ||
			(s.retryAfter != "" && res.Header.Get("retry-after") != s.retryAfter) || f.up.count(s.path) != s.calls {
			t.Fatalf("step %d (%s): cache %q age %q retry-after %q calls %d; want %q %q %q %d",
				i, s.path, got, res.Header.Get("age"), res.Header.Get("retry-after"), f.up.count(s.path), s.cache, s.age, s.retryAfter, s.calls)
		}
	}
	return f
}

func TestScripts(t *testing.T) {
	fail := func(path string) func(*fixture) { return func(f *fixture) { f.up.set(path, 503, "down", "") } }
	heal := func(path string) func(*fixture) { return func(f *fixture) { delete(f.up.answers, path) } }
	restart := func(f *fixture) { f.reopen() }
	cases := map[string][]step{
		"fresh for 30 s, then asked again": {
			{path: "/a", cache: "miss", calls: 1},
			{advance: 29_999, path: "/a", cache: "hit", age: "29", calls: 1},
			{advance: 1, path: "/a", cache: "miss", calls: 2},
		},
		"backoff 30, 60, 120 s with a copy; 503 past max-stale": {
			{path: "/a", cache: "miss", calls: 1},
			{advance: 30_000, do: fail("/a"), path: "/a", cache: "stale", age: "30", calls: 2},
			{advance: 29_999, path: "/a", cache: "stale", calls: 2},
			{advance: 1, path: "/a", cache: "stale", calls: 3}, // at 60 s: next window 60 s
			{advance: 59_999, path: "/a", cache: "stale", age: "119", calls: 3},
			{advance: 1, path: "/a", cache: "unavailable", retryAfter: "120", calls: 4}, // age 120 s: past max-stale
			{advance: 120_000, do: heal("/a"), path: "/a", cache: "miss", calls: 5},
		},
		"first failure without a copy: 5 s": {
			{do: fail("/b"), path: "/b", cache: "unavailable", retryAfter: "5", calls: 1},
			{advance: 4_999, path: "/b", cache: "unavailable", retryAfter: "1", calls: 1},
			{advance: 1, path: "/b", cache: "unavailable", retryAfter: "30", calls: 2},
		},
		"429 pauses its path alone (any query), doubles when repeated, survives a restart": {
			{path: "/ok", cache: "miss", calls: 1},
			{do: func(f *fixture) { f.up.set("/rl", 429, "", "10") }, path: "/rl", cache: "unavailable", retryAfter: "10", calls: 1},
			{path: "/rl?bust=1", cache: "unavailable", retryAfter: "10", calls: 0},
			{path: "/other", cache: "miss", calls: 1}, // another path of the service is asked
			{path: "/ok", cache: "hit", calls: 1},
			{advance: 5_000, do: restart, path: "/rl?bust=2", cache: "unavailable", retryAfter: "5", calls: 0},
			{advance: 5_000, path: "/rl", cache: "unavailable", retryAfter: "20", calls: 2},
			{advance: 20_000, do: heal("/rl"), path: "/rl", cache: "miss", calls: 3},
		},
		"a 429 without Retry-After: 5, 10, 20 s; a success starts over": {
			{do: func(f *fixture) { f.up.set("/rl", 429, "", "") }, path: "/rl", cache: "unavailable", retryAfter: "5", calls: 1},
			{advance: 4_999, path: "/rl", cache: "unavailable", retryAfter: "1", calls: 1},
			{advance: 1, path: "/rl", cache: "unavailable", retryAfter: "10", calls: 2},
			{advance: 10_000, path: "/rl", cache: "unavailable", retryAfter: "20", calls: 3},
			{advance: 20_000, do: heal("/rl"), path: "/rl", cache: "miss", calls: 4},
			{advance: 30_000, do: func(f *fixture) { f.up.set("/rl", 429, "", "") }, path: "/rl", cache: "stale", calls: 5},
			{advance: 4_999, path: "/rl", cache: "stale", calls: 5}, // the copy stands in for 5 s: the success ended the strikes
			{advance: 1, path: "/rl", cache: "stale", calls: 6},
			{advance: 9_999, path: "/rl", cache: "stale", calls: 6},
		},
		"without a credential check a 401 or 403 is its path's answer: it pauses nothing": {
			{do: func(f *fixture) { f.up.set("/auth", 401, "", ""); f.up.set("/private", 403, "", "") }, path: "/auth", cache: "pass", calls: 1},
			{path: "/private", cache: "pass", calls: 1},
			{path: "/other", cache: "miss", calls: 1},
			{path: "/private", cache: "pass", calls: 2},
		},
		"a stale copy survives a restart": {
			{path: "/a", cache: "miss", calls: 1},
			{advance: 40_000, do: func(f *fixture) { fail("/a")(f); f.reopen() }, path: "/a", cache: "stale", age: "40", calls: 2},
			{advance: 1_000, do: restart, path: "/a", cache: "stale", age: "41", calls: 2}, // the backoff too
		},
		"empty answers: 30, 30, 60, 60, 120 s, then back to 30": {
			{do: func(f *fixture) { f.up.set("/e", 200, "[]", "") }, path: "/e", cache: "miss", calls: 1},
			{advance: 30_000, path: "/e", cache: "miss", calls: 2},
			{advance: 30_000, path: "/e", cache: "miss", calls: 3},
			{advance: 59_999, path: "/e", cache: "hit", calls: 3},
			{advance: 1, path: "/e", cache: "miss", calls: 4},
			{advance: 60_000, path: "/e", cache: "miss", calls: 5},
			{advance: 119_999, path: "/e", cache: "hit", calls: 5},
			{advance: 1, do: func(f *fixture) { f.up.set("/e", 200, "[1]", "") }, path: "/e", cache: "miss", calls: 6},
			{advance: 30_000, path: "/e", cache: "miss", calls: 7},
		},
		"4xx passes through uncached": {
			{do: func(f *fixture) { f.up.set("/404", 404, "no", "") }, path: "/404", cache: "pass", calls: 1},
			{path: "/404", cache: "pass", calls: 2},
		},
		"network failure is a transient failure": {
			{path: "/n", cache: "miss", calls: 1},
			{advance: 31_000, do: func(f *fixture) { f.up.down = true }, path: "/n", cache: "stale", calls: 2},
		},
	}
	for name, steps := range cases {
		t.Run(name, func(t *testing.T) { run(t, cache.Policy{}, steps) })
	}
}

func TestCredentialCheck(t *testing.T) {
	refuse := func(f *fixture) { f.up.set("/whoami", 401, "", "") }
	checks := func(want int) func(*fixture) {
		return func(f *fixture) {
			if got := f.up.count("/whoami"); got != want {
				f.t.Fatalf("credential checks: %d, want %d", got, want)
			}
		}
	}
	run(t, cache.Policy{CredentialCheck: "/whoami"}, []step{
		// A 403 on one path: the check passes, the 403 is that path's answer.
		{do: func(f *fixture) { f.up.set("/private", 403, "", "") }, path: "/private", cache: "pass", calls: 1},
		{do: checks(1), path: "/private", cache: "pass", calls: 2},
		{do: checks(1), path: "/other", cache: "miss", calls: 1}, // a passed check is trusted for the fresh TTL
		// The edge's key is revoked: the next 403 past the trusted window is confirmed.
		{advance: 30_000, do: refuse, path: "/private", cache: "unavailable", retryAfter: "5", calls: 3},
		{do: checks(2), path: "/fresh-key", cache: "unavailable", retryAfter: "5", calls: 0},
		{path: "/other", cache: "stale", age: "30", calls: 1}, // a copy stands in during the pause
		// The check path itself refused is the evidence: the pause doubles.
		{advance: 5_000, path: "/whoami", cache: "unavailable", retryAfter: "10", calls: 3},
	})
}

func TestFiftyConcurrentGETsShareOneFetch(t *testing.T) {
	f := newFixture(t, cache.Policy{})
	f.up.hold = make(chan struct{})
	var wg sync.WaitGroup
	answers := make([]origin.Response, 50)
	for i := range answers {
		wg.Add(1)
		go func() { defer wg.Done(); answers[i] = f.get("/burst") }()
	}
	for f.svc.Stats.Get(cache.CountCoalesced) < 49 { // all but the leader are waiting
		runtimeGosched()
	}
	close(f.up.hold)
	wg.Wait()
	if n := f.up.count("/burst"); n != 1 {
		t.Fatalf("upstream calls %d, want 1", n)
	}
	for _, a := range answers {
		if a.Status != 200 || string(a.Body) != `{"path":"/burst"}` {
			t.Fatalf("answer %d %s", a.Status, a.Body)
		}
	}
}

func TestLRUBoundNeverLosesTheInFlightCall(t *testing.T) {
	f := newFixture(t, cache.Policy{MaxKeys: 2})
	f.get("/1")
	f.get("/2")
	f.get("/1") // used: /2 is the oldest
	f.get("/3")
	if got := strings.Join(f.svc.Keys(), " "); got != "/1 /3" && got != "/3 /1" {
		t.Fatalf("keys %q", got)
	}
	if f.svc.Stats.Get(cache.CountEvicted) != 1 {
		t.Fatalf("evicted %d", f.svc.Stats.Get(cache.CountEvicted))
	}
	f.reopen() // the bound, the copies and the count hold after a restart
	if f.svc.Len() != 2 {
		t.Fatalf("len after restart %d", f.svc.Len())
	}
	f.get("/4")
	f.svc.Stats.Flush()
	if n := f.svc.Stats.Get(cache.CountEvicted); n != 2 {
		t.Fatalf("evicted after a restart %d, want 2", n)
	}
}

func TestLookupNeverFetches(t *testing.T) {
	f := newFixture(t, cache.Policy{})
	if _, ok := f.svc.Lookup("/x", ""); ok {
		t.Fatal("Lookup answered a key it has no copy of")
	}
	f.get("/x")
	if res, ok := f.svc.Lookup("/x", ""); !ok || res.Header.Get(cache.HeaderCache) != "hit" {
		t.Fatalf("Lookup after a fetch: %v %v", ok, res.Header)
	}
	if f.up.count("/x") != 1 {
		t.Fatal("Lookup fetched")
	}
}

func TestPolicyValidateNamesTheField(t *testing.T) {
	for field, p := range map[string]cache.Policy{
		"maxStaleMs":     {FreshTTLMs: 10, MaxStaleMs: 5},
		"backoffMs":      {BackoffMs: []int64{}},
		"pauseMs":        {PauseMs: 10, MaxPauseMs: 5},
		"maxKeys":        {MaxKeys: -1},
		"emptySteps":     {EmptySteps: []emptyStep{{Streak: 0, TTLMs: 1}}},
		"firstFailureMs": {FirstFailureMs: -1},
	} {
		err := p.WithDefaults().Validate()
		if !errors.Is(err, cache.ErrInvalidPolicy) || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: %v", field, err)
		}
	}
}

// byAccept is an origin whose answers vary by Accept, as it says.
type byAccept struct{ calls int }

func (o *byAccept) Fetch(_ context.Context, req origin.Request) (origin.Response, error) {
	o.calls++
	return origin.Response{Status: 200, Header: origin.Header{{"vary", "Accept"}}, Body: []byte(req.Header.Get("accept"))}, nil
}

func TestVaryAcceptKeepsOneCopyPerAccept(t *testing.T) {
	db, err := sqldb.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	up := &byAccept{}
	now := int64(1_700_000_000_000)
	svc, err := cache.Open(cache.Policy{}, cache.Options{Name: "api", Upstream: "https://api.test", DB: db, Client: up, Now: func() int64 { return now }})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range []struct{ accept, cache string }{
		{"text/csv", "miss"}, {"application/json", "miss"}, {"text/csv", "hit"}, {"application/json", "hit"},
	} {
		res := svc.Get(context.Background(), "/r", s.accept)
		if got := res.Header.Get(cache.HeaderCache); got != s.cache || string(res.Body) != s.accept {
			t.Fatalf("step %d (%s): %s %q", i, s.accept, got, res.Body)
		}
	}
	if up.calls != 2 {
		t.Fatalf("upstream calls %d, want 2", up.calls)
	}
}
