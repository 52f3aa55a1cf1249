package guard_test

import (
	"strings"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/circuit"
	"github.com/gatewaycircuit/gatewaycircuit/internal/guard"
	"github.com/gatewaycircuit/gatewaycircuit/internal/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/internal/metrics"
	"github.com/gatewaycircuit/gatewaycircuit/internal/probe"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
	"github.com/gatewaycircuit/gatewaycircuit/policy/cooldown"
	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
	"github.com/gatewaycircuit/gatewaycircuit/policy/negcache"
)

const (
	t0       = int64(1_700_000_000_000)
	users    = "http://app.test/api/users"
	deadB    = "http://app.test/api/b/0"
	healthyA = "http://app.test/api/a/"
)

var (
	scope    = circuit.Policy{Scope: []string{"http://app.test/api/"}, TTLMs: 120_000, MaxTTLMs: 600_000} // round numbers; circuit.TestDefaults checks the defaults
	shortTTL = circuit.Policy{Scope: scope.Scope, TTLMs: 4_000, MaxTTLMs: 600_000}
)

// step is one line of a script: the clock advances, then one action runs
// and its result is checked.
type step struct {
	advance int64

	begin   string // URL of a GET (method GET unless method is set)
	method  string
	n       int // repeat begin n times (default 1), checking each
	want    guard.Kind
	as      string // remember the answer's ticket (or flight) under this name
	finish  string // finish the remembered ticket with status
	status  int
	ra      string // Retry-After
	cc      string // Cache-Control
	wantOut *guard.Outcome
	store   int64  // after a finish that wants the body: store this many bytes
	final   string // the response's URL after redirects
	headers string // the Begin's header block (request headers and :options)
	abort   string
	cancel  bool // what abort must say
	clear   bool
	forget  bool
	// succeeded reports a quiet-path success sent and answered these many ms
	// from now (before the step's other action); zero: none
	succeeded [2]int64

	wantArmed *bool
	wantUntil int64 // offset from t0
	wantCount map[metrics.Counter]uint64
}

func ptr[T any](v T) *T { return &v }

func run(t *testing.T, p guard.Policy, steps []step) {
	t.Helper()
	g, err := guard.New(p, store.NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	now := t0
	names := map[string]uint32{}
	for i, s := range steps {
		now += s.advance
		if s.succeeded != [2]int64{} {
			g.Succeeded(circuit.Span{SentMs: now + s.succeeded[0], AnsweredMs: now + s.succeeded[1]})
		}
		switch {
		case s.begin != "":
			m := s.method
			if m == "" {
				m = "GET"
			}
			for k := 0; k < max(s.n, 1); k++ {
				a := g.Begin(now, m, s.begin, s.headers)
				if a.Kind != s.want {
					t.Fatalf("step %d (#%d): Begin = %+v, want kind %d", i, k, a, s.want)
				}
				if s.as != "" && k == 0 {
					names[s.as] = a.Ticket
				}
			}
		case s.finish != "":
			o := g.Finish(now, names[s.finish], s.status, s.ra, s.cc, s.final)
			if s.wantOut != nil && (o.Retry != s.wantOut.Retry || o.WaitMs != s.wantOut.WaitMs || o.WantBody != s.wantOut.WantBody || o.Serve != s.wantOut.Serve) {
				t.Fatalf("step %d: Finish = %+v, want %+v", i, o, *s.wantOut)
			}
			if s.store > 0 && g.Store(now, names[s.finish], s.store, nil) == 0 {
				t.Fatalf("step %d: Store kept nothing", i)
			}
		case s.abort != "":
			if got := g.Abort(names[s.abort]); got != s.cancel {
				t.Fatalf("step %d: Abort cancel = %v, want %v", i, got, s.cancel)
			}
		case s.clear:
			g.Clear()
		case s.forget:
			g.Forget(now)
		}
		if s.wantArmed != nil {
			st, armed := g.Breaker().Read(now)
			if armed != *s.wantArmed {
				t.Fatalf("step %d: armed = %v, want %v (%+v)", i, armed, *s.wantArmed, st)
			}
			if s.wantUntil != 0 && st.Until != t0+s.wantUntil {
				t.Fatalf("step %d: until = t0%+d, want t0%+d", i, st.Until-t0, s.wantUntil)
			}
		}
		for c, want := range s.wantCount {
			if got := metricOf(g, c); got != want {
				t.Fatalf("step %d: %v = %d, want %d", i, c, got, want)
			}
		}
	}
}

func TestGuardScripts(t *testing.T) {
	yes, no := ptr(true), ptr(false)
	withStale := guard.Policy{Circuit: scope}
	withStale.Stale.Mode = mode.On
	tests := []struct {
		name  string
		p     guard.Policy
		steps []step
	}{
		{"out of scope passes untouched and never arms", guard.Policy{Circuit: scope}, []step{
			{begin: "http://app.test/static/a.js", want: guard.Pass},
			{begin: "http://other.test/api/users", want: guard.Pass, wantArmed: no},
		}},
		{"50 identical GETs make 1 request", guard.Policy{Circuit: scope}, []step{
			{begin: users, want: guard.Send, as: "leader"},
			{begin: users, n: 49, want: guard.Join},
			{finish: "leader", status: 200, wantCount: map[metrics.Counter]uint64{metrics.Coalesced: 49}},
			{begin: users, want: guard.Send}, // the flight is over: a new request
		}},
		{"POSTs are never coalesced", guard.Policy{Circuit: scope}, []step{
			{begin: users, method: "POST", want: guard.Send},
			{begin: users, method: "POST", want: guard.Send},
		}},
		{"a 502 arms; F5 storm answered as open", guard.Policy{Circuit: scope}, []step{
			{begin: users, want: guard.Send, as: "a"},
			{finish: "a", status: 502, wantArmed: yes, wantUntil: 120_000},
			{begin: users, n: 20, want: guard.Open, wantCount: map[metrics.Counter]uint64{metrics.ShortCircuited: 20}},
		}},
		{"a 503's Retry-After is the TTL, capped at max TTL", guard.Policy{Circuit: scope}, []step{
			{begin: users, want: guard.Send, as: "a"},
			{finish: "a", status: 503, ra: "30", wantArmed: yes, wantUntil: 30_000},
			{clear: true},
			{begin: users, want: guard.Send, as: "b"},
			{finish: "b", status: 503, ra: "86400", wantArmed: yes, wantUntil: 600_000},
		}},
		{"expiry: exactly one probe, the others wait; a failed probe doubles the TTL", guard.Policy{Circuit: scope}, []step{
			{begin: users, want: guard.Send, as: "a"},
			{finish: "a", status: 502},
			{advance: 120_000, begin: users, want: guard.Send, as: "probe", wantCount: map[metrics.Counter]uint64{metrics.Probes: 1}},
			{begin: users, n: 19, want: guard.Wait},
			{finish: "probe", status: 502, wantArmed: yes, wantUntil: 120_000 + 240_000},
			{begin: users, n: 19, want: guard.Open, wantCount: map[metrics.Counter]uint64{metrics.ShortCircuited: 19}},
		}},
		{"a successful probe closes, and forgets the outage's negative entries", guard.Policy{Circuit: shortTTL}, []step{
			{begin: users, want: guard.Send, as: "a"},
			{finish: "a", status: 504},
			{advance: 4_000, begin: "http://app.test/api/probe", want: guard.Send, as: "probe"},
			{begin: users, want: guard.Wait},
			{finish: "probe", status: 200, wantArmed: no},
			{begin: users, want: guard.Send}, // within the 5 s negative window of its 504
		}},
		{"an aborted probe hands over to the next request", guard.Policy{Circuit: scope}, []step{
			{begin: users, want: guard.Send, as: "a"},
			{finish: "a", status: 502},
			{advance: 120_000, begin: users, want: guard.Send, as: "probe"},
			{abort: "probe", cancel: true},
			{begin: users, want: guard.Send, wantCount: map[metrics.Counter]uint64{metrics.Probes: 2}},
		}},
		{"429 with Retry-After 2: one retry after 2 s", guard.Policy{Circuit: scope}, []step{
			{begin: users, want: guard.Send, as: "a"},
			{finish: "a", status: 429, ra: "2", wantOut: &guard.Outcome{Retry: true, WaitMs: 2000}},
			{advance: 2000, finish: "a", status: 200, wantOut: &guard.Outcome{}},
			{begin: users, want: guard.Send},
		}},
		{"a pause the module chose (no Retry-After) pauses the whole service, and the user's retry lifts it", guard.Policy{Circuit: scope, Cooldown: cooldown.Policy{PauseMs: 300_000}}, []step{
			{begin: users, want: guard.Send, as: "a"},
			{finish: "a", status: 429, wantOut: &guard.Outcome{}},
			{begin: "http://app.test/api/orders", want: guard.Cooling},
			{clear: true},
			{begin: users, want: guard.Send},
		}},
		{"a pause the server asked for (Retry-After) stays after the user's retry", guard.Policy{Circuit: scope}, []step{
			{begin: users, want: guard.Send, as: "a"},
			{finish: "a", status: 429, ra: "120", wantOut: &guard.Outcome{}},
			{clear: true},
			{advance: 119_999, begin: users, want: guard.Cooling},
			{advance: 1, begin: users, want: guard.Send},
		}},
		{"a trip withdrawn by a success (a rate limiter) is not an outage: a GET that fails next is asked again", guard.Policy{Circuit: scope}, []step{
			{begin: users, want: guard.Send, as: "a"},
			{begin: "http://app.test/api/orders", want: guard.Send, as: "b"},
			{finish: "a", status: 503, wantArmed: yes},
			{finish: "b", status: 200, wantArmed: no},
			{advance: 10, begin: users, want: guard.Send, as: "c"},
			{finish: "c", status: 503, wantArmed: no},
			{advance: 1_000, begin: users, want: guard.Send}, // TanStack's first retry reaches the network
		}},
		{"a failed GET is not asked again inside its window", guard.Policy{Circuit: scope, Negative: negcache.Policy{Mode: mode.Always}}, []step{
			{begin: users, want: guard.Send, as: "a"},
			{finish: "a", status: 500, wantArmed: no},
			{advance: 4_999, begin: users, want: guard.Negative},
			{advance: 1, begin: users, want: guard.Send, as: "b"},
			{finish: "b", status: 0}, // network error
			{advance: 29_999, begin: users, want: guard.Negative},
			{clear: true},
			{begin: users, want: guard.Send},
		}},
		{"stale: the last good copy answers for the circuit and for failures, with its age", withStale, []step{
			{begin: users, want: guard.Send, as: "a"},
			{finish: "a", status: 200, wantOut: &guard.Outcome{WantBody: true}, store: 120},
			{advance: 10_000, begin: users, want: guard.Send, as: "b"},
			{finish: "b", status: 502, wantOut: &guard.Outcome{Serve: true}, wantArmed: yes},
			{advance: 1_000, begin: users, want: guard.Stale, wantCount: map[metrics.Counter]uint64{metrics.StaleServed: 2}},
			{begin: "http://app.test/api/never-fetched", want: guard.Send, as: "scout"}, // a key the open circuit has not seen asks
			{advance: 10, finish: "scout", status: 502, wantOut: &guard.Outcome{}, wantArmed: yes},
			{begin: "http://app.test/api/never-fetched", want: guard.Open},
		}},
		{"one upstream down, then a healthy section: its first GET scouts, the others wait, its success lets them through", guard.Policy{Circuit: scope}, []step{
			{begin: deadB, want: guard.Send, as: "b"},
			{advance: 10, finish: "b", status: 502, wantArmed: yes},
			{advance: 2_000, begin: healthyA + "0", want: guard.Send, as: "scout"},
			{begin: healthyA + "1", want: guard.Wait},
			{begin: deadB, want: guard.Open}, // failed in the open period
			{advance: 20, finish: "scout", status: 200, wantArmed: no},
			{begin: healthyA + "1", want: guard.Send, as: "a1"}, // the waiter decides again
			{advance: 1_000, begin: deadB, want: guard.Send, as: "retry"},
			{advance: 10, finish: "retry", status: 502, wantArmed: no}, // the dead key failed partially
		}},
		{"the whole gateway down: a section opened after the trip costs its scout, the others are answered open after it", guard.Policy{Circuit: scope}, []step{
			{begin: deadB, want: guard.Send, as: "b"},
			{advance: 10, finish: "b", status: 502, wantArmed: yes},
			{advance: 2_000, begin: healthyA + "0", want: guard.Send, as: "scout"},
			{begin: healthyA + "1", want: guard.Wait},
			{begin: healthyA + "2", want: guard.Wait},
			{advance: 10, finish: "scout", status: 502, wantArmed: yes},
			{begin: healthyA + "1", want: guard.Open}, // the waiters decide again
			{begin: healthyA + "2", want: guard.Open},
			{begin: healthyA + "0", want: guard.Open},
		}},
		{"an aborted scout frees the slot", guard.Policy{Circuit: scope}, []step{
			{begin: deadB, want: guard.Send, as: "b"},
			{advance: 10, finish: "b", status: 502, wantArmed: yes},
			{begin: healthyA + "0", want: guard.Send, as: "scout"},
			{abort: "scout", cancel: true},
			{begin: healthyA + "1", want: guard.Send},
		}},
		{"stale is off by default", guard.Policy{Circuit: scope}, []step{
			{begin: users, want: guard.Send, as: "a"},
			{finish: "a", status: 200, wantOut: &guard.Outcome{}},
			{advance: 300, begin: users, want: guard.Send, as: "b"},
			{advance: 30, finish: "b", status: 502, wantOut: &guard.Outcome{}}, // sent well after the success came back: down, not partial
			{begin: users, want: guard.Open},
		}},
		{"abort then refetch: once every caller left, the same GET starts a new request", guard.Policy{Circuit: scope}, []step{
			{begin: users, want: guard.Send, as: "a"},
			{begin: users, want: guard.Join},
			{abort: "a", cancel: true}, // the glue reports it when its last caller left
			{begin: users, want: guard.Send, as: "again"},
			{abort: "a", cancel: false}, // once only
		}},
		{"an answer from a redirect out of scope does not arm the circuit", guard.Policy{Circuit: scope}, []step{
			{begin: users, want: guard.Send, as: "a"},
			{finish: "a", status: 502, final: "http://elsewhere.test/x", wantOut: &guard.Outcome{}},
			{begin: users, want: guard.Send},
		}},
		{"requests share a flight only when every option that can change the answer is equal", guard.Policy{Circuit: scope}, []step{
			{begin: users, want: guard.Send},
			{begin: users, headers: ":mode: no-cors\n", want: guard.Send},
			{begin: users, headers: ":redirect: manual\n", want: guard.Send},
			{begin: users, headers: ":credentials: omit\n", want: guard.Send},
			{begin: users, headers: ":credentials: omit\n", want: guard.Join},
			{begin: users, headers: "authorization: Bearer b\n", want: guard.Send},
			{begin: users, want: guard.Join},
		}},
		{"calls whose own deadlines differ do not share a flight; the request's key is the same (a failure answered open for both)", guard.Policy{Circuit: scope}, []step{
			{begin: users, want: guard.Send, as: "a"},
			{begin: users, headers: ":timeout: false\n", want: guard.Send, as: "patient"},
			{begin: users, headers: ":timeout: false\n", want: guard.Join},
			{begin: users, want: guard.Join},
			{finish: "a", status: 502, wantOut: &guard.Outcome{}, wantArmed: yes},
			{begin: users, headers: ":timeout: false\n", want: guard.Open},
		}},
		{"a mutation's failure arms nothing by itself: the reads after it go out; a read's failure still arms", guard.Policy{Circuit: scope}, []step{
			{begin: users, method: "POST", want: guard.Send, as: "order"},
			{finish: "order", status: 502, wantOut: &guard.Outcome{}, wantArmed: no},
			{advance: 500, begin: users, want: guard.Send, as: "read"},
			{finish: "read", status: 200, wantOut: &guard.Outcome{}, wantArmed: no},
			{advance: 5000, begin: users, want: guard.Send, as: "down"},
			{finish: "down", status: 502, wantOut: &guard.Outcome{}, wantArmed: yes},
		}},
		{"forget (logout): a request in flight can no longer be joined", guard.Policy{Circuit: scope}, []step{
			{begin: users, want: guard.Send, as: "alice"},
			{forget: true},
			{begin: users, want: guard.Send},
		}},
		{"a success reported late still tells a rate limiter from an outage", guard.Policy{Circuit: scope}, []step{
			{begin: users, want: guard.Send, as: "a"},
			{advance: 30, succeeded: [2]int64{-40, -5}, finish: "a", status: 503, wantArmed: no}, // answered while a was in flight
		}},
		{"a success reported late that ended before the failing request was sent is history", guard.Policy{Circuit: scope}, []step{
			{succeeded: [2]int64{-1000, -300}, begin: users, want: guard.Send, as: "a"},
			{advance: 30, finish: "a", status: 502, wantArmed: yes},
		}},
		{"a retried 429 is sent again: a success during its wait is not in flight with the retry", guard.Policy{Circuit: scope}, []step{
			{begin: users, want: guard.Send, as: "a"},
			{advance: 5, finish: "a", status: 429, ra: "1", wantOut: &guard.Outcome{Retry: true, WaitMs: 1000}},
			{advance: 1_100, succeeded: [2]int64{-1_080, -500}, finish: "a", status: 503, wantArmed: yes}, // the retry went at +1005
		}},
		{"an opaque answer is an answer, not a failure", guard.Policy{Circuit: scope}, []step{
			{begin: users, want: guard.Send, as: "a"},
			{finish: "a", status: guard.StatusOpaque, wantOut: &guard.Outcome{}},
			{begin: users, want: guard.Send},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { run(t, tt.p, tt.steps) })
	}
}

func TestStaleCopyCarriesItsAge(t *testing.T) {
	p := guard.Policy{Circuit: scope}
	p.Stale.Mode = mode.On
	g, _ := guard.New(p, store.NewMemory())
	a := g.Begin(t0, "GET", users, "")
	g.Finish(t0, a.Ticket, 200, "", "", "")
	id := g.Store(t0, a.Ticket, 10, nil)
	g.Arm(t0+5000, 502, 0)
	got := g.Begin(t0+7000, "GET", users, "")
	if got.Kind != guard.Stale || got.Copy.ID != id || got.Copy.AgeMs != 7000 || got.Copy.StoredAtMs != t0 {
		t.Fatalf("Begin = %+v, want the copy %d aged 7000 ms", got, id)
	}
}

// TestBodyNotCopied: the shim takes no copy of an answer it may not read
// (an event stream, a body the caller cancelled, one past the limit) and
// says so with a size of -1: the ticket ends, and the key's older copy,
// no longer its last good answer, goes.
func TestBodyNotCopied(t *testing.T) {
	p := guard.Policy{Circuit: scope}
	p.Stale.Mode = mode.On
	g, _ := guard.New(p, store.NewMemory())
	a := g.Begin(t0, "GET", users, "")
	g.Finish(t0, a.Ticket, 200, "", "", "")
	old := g.Store(t0, a.Ticket, 10, nil)
	b := g.Begin(t0+1000, "GET", users, "")
	if o := g.Finish(t0+1000, b.Ticket, 200, "", "", ""); !o.WantBody {
		t.Fatalf("Finish = %+v, want WantBody", o)
	}
	if id := g.Store(t0+1000, b.Ticket, -1, nil); id != 0 {
		t.Fatalf("Store(-1) = %d, want 0", id)
	}
	if n := g.InFlight(); n != 0 {
		t.Fatalf("%d tickets left, want 0", n)
	}
	if d := g.Dropped(); len(d) != 1 || d[0] != old {
		t.Fatalf("Dropped = %v, want [%d]", d, old)
	}
}

func TestHeadersThatVaryTheAnswerAreNotCoalesced(t *testing.T) {
	g, _ := guard.New(guard.Policy{Circuit: scope}, store.NewMemory())
	a := g.Begin(t0, "GET", users, "x-tenant: a")
	b := g.Begin(t0, "GET", users, "x-tenant: b")
	c := g.Begin(t0, "GET", users, "x-tenant: a\ntraceparent: 00-1")
	if a.Kind != guard.Send || b.Kind != guard.Send || c.Kind != guard.Join || c.Flight != a.Flight {
		t.Fatalf("a=%+v b=%+v c=%+v", a, b, c)
	}
}

func TestInFlightIsBounded(t *testing.T) {
	g, _ := guard.New(guard.Policy{Circuit: scope}, store.NewMemory())
	for i := 0; i < guard.MaxInFlight+10; i++ {
		g.Begin(t0, "POST", users, "")
	}
	if g.InFlight() != guard.MaxInFlight || metricOf(g, metrics.Evicted) != 10 {
		t.Fatalf("in flight %d, evicted %d", g.InFlight(), metricOf(g, metrics.Evicted))
	}
}

func TestQuietAndAdopt(t *testing.T) {
	g, _ := guard.New(guard.Policy{Circuit: scope}, store.NewMemory())
	if !g.Quiet() {
		t.Fatal("a fresh guard is not quiet")
	}
	// A GET the shim sent on its own gets a 502: adopted, it arms the circuit.
	id := g.Adopt(t0-10, "GET", users, "")
	if id == 0 {
		t.Fatal("Adopt gave no ticket")
	}
	g.Finish(t0, id, 502, "", "", "")
	if _, armed := g.Breaker().Read(t0 + 1); !armed || g.Quiet() {
		t.Fatalf("armed %v, quiet %v after an adopted 502", armed, g.Quiet())
	}
	g.Clear()
	if !g.Quiet() {
		t.Fatal("clear did not make it quiet again")
	}
	// An adopted 429 with a short Retry-After is retried once, as any other.
	id = g.Adopt(t0-10, "GET", users, "")
	if o := g.Finish(t0, id, 429, "1", "", ""); !o.Retry || o.WaitMs != 1000 {
		t.Fatalf("adopted 429: %+v", o)
	}
	if g.Quiet() {
		t.Fatal("quiet while a service has strikes")
	}
	if g.Adopt(t0, "GET", "http://elsewhere.test/", "") != 0 {
		t.Fatal("adopted an out-of-scope request")
	}
	p := guard.Policy{Circuit: scope}
	p.Stale.Mode = mode.On
	if s, _ := guard.New(p, store.NewMemory()); s.Quiet() {
		t.Fatal("quiet with stale copies to keep")
	}
}

// Which answers on the quiet path change nothing follows the policy: a
// configured 4xx trip status is reported like a 5xx.
func TestUneventfulFollowsTheTripStatuses(t *testing.T) {
	for _, c := range []struct {
		trips  []int
		status int
		want   bool
	}{
		{nil, 200, true}, {nil, 404, true}, {nil, 408, true}, {nil, guard.StatusOpaque, true},
		{nil, 429, false}, {nil, 500, false}, {nil, 502, false}, {nil, guard.StatusNoAnswer, false}, {nil, 99, false}, {nil, 600, false},
		{[]int{408, 502}, 408, false}, {[]int{408, 502}, 404, true}, {[]int{408, 502}, 503, false},
	} {
		p := guard.Policy{Circuit: scope}
		p.Circuit.TripStatuses = c.trips
		g, err := guard.New(p, store.NewMemory())
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Uneventful(c.status); got != c.want {
			t.Errorf("trip statuses %v: Uneventful(%d) = %v", c.trips, c.status, got)
		}
	}
}

func TestEmptyResultsAreCachedLonger(t *testing.T) {
	p := guard.Policy{Circuit: scope}
	p.Empty.Mode = mode.On
	g, _ := guard.New(p, store.NewMemory())
	now := t0
	answer := func(body string) {
		t.Helper()
		a := g.Begin(now, "GET", users, "")
		if a.Kind != guard.Send {
			t.Fatalf("Begin = %+v, want Send", a)
		}
		if o := g.Finish(now, a.Ticket, 200, "", "", ""); !o.WantBody {
			t.Fatal("no copy asked for")
		}
		g.Store(now, a.Ticket, int64(len(body)), []byte(body))
	}
	answer("[]")
	answer(" [ ] ")
	answer("{}") // third empty answer in a row: 60 s
	now += 59_000
	if a := g.Begin(now, "GET", users, ""); a.Kind != guard.Cached || a.Copy.AgeMs != 59_000 {
		t.Fatalf("Begin = %+v, want the cached empty answer", a)
	}
	if metricOf(g, metrics.EmptyReused) != 1 {
		t.Fatal("emptyReused not counted")
	}
	now += 1_000
	answer("[1]") // not empty: snap back
	if a := g.Begin(now, "GET", users, ""); a.Kind != guard.Send {
		t.Fatalf("Begin = %+v, want Send after a non-empty answer", a)
	}
	// Copies kept for this do not answer for failures: the stale fallback is off.
	g.Arm(now, 502, 0)
	if a := g.Begin(now, "GET", users, ""); a.Kind != guard.Open {
		t.Fatalf("Begin = %+v, want Open (no stale fallback)", a)
	}
}

func TestACooldownSurvivesAReload(t *testing.T) {
	mem := store.NewMemory()
	g, _ := guard.New(guard.Policy{Circuit: scope}, mem)
	a := g.Begin(t0, "GET", users, "")
	g.Finish(t0, a.Ticket, 429, "", "", "") // 300 s, no retry without Retry-After? (Pause)
	reloaded, _ := guard.New(guard.Policy{Circuit: scope}, mem)
	reloaded.Load(t0 + 1000)
	if got := reloaded.Begin(t0+1000, "GET", users, ""); got.Kind != guard.Cooling {
		t.Fatalf("after F5: Begin = %+v, want Cooling", got)
	}
	if reloaded.Quiet() {
		t.Fatal("quiet while a restored pause holds")
	}
}

// A scout and its waiters name it the same way, apart from the half-open
// probes' ids; after F5 (the circuit restored) the keys seen are answered
// open, and the scout that went with the page freed its slot for a new key.
func TestScoutAnswers(t *testing.T) {
	mem := store.NewMemory()
	g, _ := guard.New(guard.Policy{Circuit: scope}, mem)
	b := g.Begin(t0, "GET", deadB, "")
	g.Finish(t0+10, b.Ticket, 502, "", "", "")
	scout := g.Begin(t0+1000, "GET", healthyA+"0", "")
	waiter := g.Begin(t0+1000, "GET", healthyA+"1", "")
	if scout.Kind != guard.Send || scout.Probe&guard.ScoutBit == 0 || waiter.Kind != guard.Wait || waiter.Probe != scout.Probe || waiter.WaitMs <= 0 {
		t.Fatalf("scout %+v, waiter %+v: want Send and Wait on the same id, with ScoutBit", scout, waiter)
	}
	reloaded, _ := guard.New(guard.Policy{Circuit: scope}, mem)
	reloaded.Load(t0 + 2000)
	if a := reloaded.Begin(t0+2000, "GET", healthyA+"1", ""); a.Kind != guard.Open {
		t.Fatalf("after F5, a key seen: Begin = %+v, want Open", a)
	}
	if a := reloaded.Begin(t0+2000, "GET", healthyA+"2", ""); a.Kind != guard.Send || a.Probe&guard.ScoutBit == 0 {
		t.Fatalf("after F5, a new key: Begin = %+v, want Send as the scout", a)
	}
}

// The shim says a page is a reload (navigation=reload): it sends no scout,
// and the stored scouting stays for a page of other keys.
func TestAReloadSendsNoScout(t *testing.T) {
	mem := store.NewMemory()
	g, _ := guard.New(guard.Policy{Circuit: scope}, mem)
	b := g.Begin(t0, "GET", deadB, "")
	g.Finish(t0+10, b.Ticket, 502, "", "", "")
	p, _, _ := guard.ParseAttributes("scope=" + scope.Scope[0] + "\nnavigation=reload\n")
	if !p.Reloaded {
		t.Fatal("navigation=reload not read")
	}
	reloaded, _ := guard.New(p, mem)
	reloaded.Load(t0 + 1000)
	if a := reloaded.Begin(t0+1000, "GET", healthyA+"0", ""); a.Kind != guard.Open {
		t.Fatalf("F5, a new key: Begin = %+v, want Open", a)
	}
	p.Reloaded = false
	navigated, _ := guard.New(p, mem)
	navigated.Load(t0 + 2000)
	if a := navigated.Begin(t0+2000, "GET", healthyA+"0", ""); a.Kind != guard.Send || a.Probe&guard.ScoutBit == 0 {
		t.Fatalf("then a navigation, a new key: Begin = %+v, want Send as the scout", a)
	}
}

// A request answered as open while the probe is out counts as short-circuited.
func TestBlockedWaitersAreCounted(t *testing.T) {
	g, _ := guard.New(guard.Policy{Circuit: shortTTL, Probe: probe.Policy{BlockWaiters: true}}, store.NewMemory())
	g.Arm(t0, 502, 0)
	now := t0 + shortTTL.TTLMs
	if a := g.Begin(now, "GET", users, ""); a.Kind != guard.Send || a.Probe == 0 {
		t.Fatalf("Begin = %+v, want the probe", a)
	}
	if a := g.Begin(now, "GET", users+"/2", ""); a.Kind != guard.Open {
		t.Fatalf("Begin = %+v, want Open while the probe is out", a)
	}
	if got := metricOf(g, metrics.ShortCircuited); got != 1 {
		t.Fatalf("shortCircuited = %d, want 1", got)
	}
}

func metricOf(g *guard.Guard, c metrics.Counter) uint64 {
	m := g.Metrics()
	return m.Get(c)
}

// The caller's own Idempotency-Key is read from the header block as the
// shim writes it (names lower case), verbatim: an sf-string keeps its quotes.
func TestGivenKey(t *testing.T) {
	for headers, want := range map[string]string{
		"":                                 "",
		"content-type: application/json\n": "",
		"idempotency-key: order-1\n":       "order-1",
		"a: 1\nidempotency-key: \"order-7\"\n:credentials: omit\n": `"order-7"`,
		"x-idempotency-key: no\nidempotency-key: yes":              "yes",
		":idempotency-key: option\n":                               "",
		"idempotency-key: \n":                                      "",
	} {
		if got := guard.GivenKey(headers); got != want {
			t.Errorf("GivenKey(%q) = %q, want %q", headers, got, want)
		}
	}
}

// A mutation's operation never refuses a URL for its length, and keeps no query.
func TestOperation(t *testing.T) {
	long := "http://app.test/api/orders?token=secret&x=" + strings.Repeat("y", 3000)
	op := guard.Operation("POST", long, "")
	if len(op) > 600 || strings.Contains(op, "secret") {
		t.Fatalf("operation %q", op)
	}
	if guard.Operation("POST", long+"z", "") == op {
		t.Fatal("two URLs, one operation")
	}
	if got := guard.Operation("PUT", "http://app.test/api/a?k=1", ""); strings.Contains(got, "k=1") || !strings.HasPrefix(got, "PUT http://app.test/api/a?") {
		t.Fatalf("operation %q", got)
	}
	if got := guard.Operation("DELETE", "http://app.test/api/a", ""); got != "DELETE http://app.test/api/a" {
		t.Fatalf("operation %q", got)
	}
	longPath := guard.Operation("POST", "http://app.test/"+strings.Repeat("p", 3000), "")
	if len(longPath) > idempotency.MaxOperationLen {
		t.Fatalf("a long path makes a %d-byte operation", len(longPath))
	}
	alice := guard.Operation("POST", "http://app.test/api/a", "authorization: Bearer alice\n")
	bob := guard.Operation("POST", "http://app.test/api/a", "authorization: Bearer bob\n")
	omit := guard.Operation("POST", "http://app.test/api/a", ":credentials: omit\n")
	if alice == bob || alice == omit || strings.Contains(alice, "alice") {
		t.Fatalf("principals: %q %q %q", alice, bob, omit)
	}
	l, _ := idempotency.New(idempotency.Policy{}, store.NewMemory())
	if _, err := l.Submit(0, op, "", []byte("{}"), [16]byte{1}); err != nil {
		t.Fatalf("the ledger refuses the operation of a long URL: %v", err)
	}
}
