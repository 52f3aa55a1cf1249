package probe_test

import (
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/circuit"
	"github.com/gatewaycircuit/gatewaycircuit/internal/probe"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
	"github.com/gatewaycircuit/gatewaycircuit/policy/policyerr"
)

const (
	t0  = int64(1_700_000_000_000)
	api = "http://app.test/api/users"
)

// tab is the documented wiring of a Breaker and a Gate, as the fetch wrapper
// will do it, so the scripts test what a page sees.
type tab struct {
	b *circuit.Breaker
	g *probe.Gate
}

// request returns what happens to one in-scope request: "block", "send",
// "probe", "wait" (with the probe id it waits on).
func (t *tab) request(now int64) (string, uint32) {
	if t.b.Decide(now, api) == circuit.Block {
		return "block", 0
	}
	d, id := t.g.Decide(now, t.b.Phase(now) == circuit.HalfOpen)
	if d == probe.Closed {
		return "send", 0
	}
	return d.String(), id
}

// answer reports the response to a request sent as probe id (0: a normal
// one): the breaker observes every answer, and the gate frees the probe's slot.
func (t *tab) answer(now int64, id uint32, status int) {
	t.b.Observe(now, circuit.Span{SentMs: now - 1, AnsweredMs: now}, status, circuit.NoRetryAfter)
	if id == 0 {
		return
	}
	if p := t.b.Policy(); status == 0 || p.Trips(status) {
		t.g.Failed(id)
	} else {
		t.g.Succeeded(id)
	}
}

// step: the clock advances, then requests are made (all must get wantEach),
// then an answer is given to probe #answerProbe (1-based, in order of the
// script) or to a normal request (answerProbe -1).
type step struct {
	advance     int64
	requests    int
	wantEach    string
	answerProbe int // the n-th probe of the script; -1 a normal request; 0 none
	status      int
	abandon     int // the n-th probe of the script is aborted
	reload      bool
	clear       bool
	wantUntil   int64 // breaker until, as an offset from t0, when non-zero
}

func run(t *testing.T, p probe.Policy, steps []step) {
	t.Helper()
	mem := store.NewMemory()
	cp := circuit.Policy{Scope: []string{"http://app.test/api/"}, TTLMs: 120_000, MaxTTLMs: 600_000} // round numbers; the defaults are circuit.TestDefaults'
	b, err := circuit.New(cp, mem)
	if err != nil {
		t.Fatal(err)
	}
	g, err := probe.New(p)
	if err != nil {
		t.Fatal(err)
	}
	tb := &tab{b, g}
	now := t0
	var probes []uint32
	for i, s := range steps {
		now += s.advance
		for r := 0; r < s.requests; r++ {
			got, id := tb.request(now)
			if got != s.wantEach {
				t.Fatalf("step %d, request %d: %s, want %s", i, r, got, s.wantEach)
			}
			if got == "probe" {
				probes = append(probes, id)
			}
			if got == "wait" && id != probes[len(probes)-1] {
				t.Fatalf("step %d: waits on %d, not on the probe in flight %d", i, id, probes[len(probes)-1])
			}
		}
		switch {
		case s.answerProbe == -1:
			tb.answer(now, 0, s.status)
		case s.answerProbe > 0:
			tb.answer(now, probes[s.answerProbe-1], s.status)
		case s.abandon > 0:
			g.Abandoned(probes[s.abandon-1])
		case s.clear:
			b.Clear()
			g.Clear()
		case s.reload: // F5: a new breaker and gate over the same storage
			b, _ = circuit.New(cp, mem)
			g, _ = probe.New(p)
			b.Load(now)
			tb = &tab{b, g}
		}
		if s.wantUntil != 0 {
			if st, _ := b.Read(now); st.Until != t0+s.wantUntil {
				t.Fatalf("step %d: until = t0%+d, want t0%+d", i, st.Until-t0, s.wantUntil)
			}
		}
	}
}

// trip arms the circuit at t0 with a 502 (base TTL 120 s).
var trip = step{requests: 1, wantEach: "send", answerProbe: -1, status: 502, wantUntil: 120_000}

func TestGateScripts(t *testing.T) {
	tests := []struct {
		name  string
		p     probe.Policy
		steps []step
	}{
		{"20 requests at expiry: one probe, 19 wait; success closes", probe.Policy{}, []step{
			trip,
			{advance: 60_000, requests: 20, wantEach: "block"},
			{advance: 60_000, requests: 1, wantEach: "probe"},
			{requests: 19, wantEach: "wait"},
			{advance: 300, answerProbe: 1, status: 200},
			{requests: 20, wantEach: "send"},
		}},
		{"a 500 from the probe is still the gateway answering: closed", probe.Policy{}, []step{
			trip,
			{advance: 120_000, requests: 1, wantEach: "probe", answerProbe: 1, status: 500},
			{requests: 3, wantEach: "send"},
		}},
		{"failed probes double the TTL up to the max; success resets", probe.Policy{}, []step{
			trip,
			{advance: 120_000, requests: 1, wantEach: "probe", answerProbe: 1, status: 503, wantUntil: 120_000 + 240_000},
			{requests: 5, wantEach: "block"},
			{advance: 240_000, requests: 1, wantEach: "probe", answerProbe: 2, status: 502, wantUntil: 360_000 + 480_000},
			{advance: 480_000, requests: 1, wantEach: "probe", answerProbe: 3, status: 0, wantUntil: 840_000 + 600_000},
			{advance: 600_000, requests: 1, wantEach: "probe", answerProbe: 4, status: 504, wantUntil: 1_440_000 + 600_000},
			{advance: 600_000, requests: 1, wantEach: "probe", answerProbe: 5, status: 204},
			{advance: 3000, requests: 1, wantEach: "send", answerProbe: -1, status: 502, wantUntil: 2_043_000 + 120_000}, // a success 3 s ago: no longer partial
		}},
		{"a network failure re-arms with the status the circuit had", probe.Policy{}, []step{
			{requests: 1, wantEach: "send", answerProbe: -1, status: 504, wantUntil: 120_000},
			{advance: 120_000, requests: 1, wantEach: "probe", answerProbe: 1, status: 0, wantUntil: 120_000 + 240_000},
		}},
		{"an abandoned probe hands over to the next request", probe.Policy{}, []step{
			trip,
			{advance: 120_000, requests: 1, wantEach: "probe"},
			{requests: 2, wantEach: "wait", abandon: 1},
			{requests: 1, wantEach: "probe"},
			{requests: 1, wantEach: "wait", answerProbe: 2, status: 200},
			{requests: 1, wantEach: "send"},
		}},
		{"a probe unanswered for 30 s is replaced", probe.Policy{}, []step{
			trip,
			{advance: 120_000, requests: 1, wantEach: "probe"},
			{advance: 29_999, requests: 1, wantEach: "wait"},
			{advance: 1, requests: 1, wantEach: "probe"},
			{requests: 1, wantEach: "wait"},
		}},
		{"block waiters instead of making them wait", probe.Policy{BlockWaiters: true}, []step{
			trip,
			{advance: 120_000, requests: 1, wantEach: "probe"},
			{requests: 5, wantEach: "block"},
		}},
		{"clear resets the probe and the doubling", probe.Policy{}, []step{
			trip,
			{advance: 120_000, requests: 1, wantEach: "probe", answerProbe: 1, status: 503},
			{clear: true},
			{advance: 3000, requests: 3, wantEach: "send", answerProbe: -1, status: 502, wantUntil: 123_000 + 120_000},
			{advance: 120_000, requests: 1, wantEach: "probe"},
		}},
		{"the half-open state survives a reload: the new page sends one probe", probe.Policy{}, []step{
			trip,
			{advance: 120_000, requests: 1, wantEach: "probe"},
			{reload: true},
			{requests: 1, wantEach: "probe"},
			{requests: 9, wantEach: "wait", answerProbe: 2, status: 502, wantUntil: 120_000 + 240_000},
			{reload: true},
			{advance: 240_000, requests: 1, wantEach: "probe", answerProbe: 3, status: 502, wantUntil: 360_000 + 480_000},
		}},
		{"disabled: the stampede of today", probe.Policy{Mode: mode.Off}, []step{
			trip,
			{advance: 120_000, requests: 20, wantEach: "send"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { run(t, tt.p, tt.steps) })
	}
}

func TestReportsForAnotherIDChangeNothing(t *testing.T) {
	g, _ := probe.New(probe.Policy{})
	_, id := g.Decide(t0, true)
	if g.Succeeded(id+1) || g.Succeeded(0) {
		t.Fatal("Succeeded accepted an id that is not the probe")
	}
	if g.Failed(id + 1) {
		t.Fatal("Failed accepted an id that is not the probe")
	}
	g.Abandoned(id + 1)
	if d, got := g.Decide(t0, true); d != probe.Wait || got != id {
		t.Fatalf("Decide = %v %d, want wait on %d", d, got, id)
	}
}

func TestPolicyValidateNamesTheField(t *testing.T) {
	for _, c := range []struct {
		p     probe.Policy
		field string
	}{
		{probe.Policy{ProbeTimeoutMs: -1}, "probeTimeoutMs"},
	} {
		_, err := probe.New(c.p)
		if got := policyerr.Field(err, probe.ErrInvalidPolicy); got != c.field {
			t.Errorf("New(%+v) err = %v, want a policy error for %s", c.p, err, c.field)
		}
	}
}

func TestClockJumpBackDoesNotHoldTheProbe(t *testing.T) {
	g, _ := probe.New(probe.Policy{})
	_, id := g.Decide(t0, true)
	back := t0 - 3_600_000 // Date.now() went back an hour
	if d, got := g.Decide(back, true); d != probe.Wait || got != id {
		t.Fatalf("Decide = %v %d, want wait on %d", d, got, id)
	}
	if d, _ := g.Decide(back+probe.DefaultProbeTimeoutMs, true); d != probe.Probe {
		t.Fatalf("Decide 30 s after the jump = %v, want a new probe (not an hour's wait)", d)
	}
}

func TestNotHalfOpenForgetsTheProbe(t *testing.T) {
	g, _ := probe.New(probe.Policy{})
	g.Decide(t0, true)
	if d, _ := g.Decide(t0, false); d != probe.Closed || !g.Idle() {
		t.Fatalf("Decide(not half-open) = %v, idle %v", d, g.Idle())
	}
}
