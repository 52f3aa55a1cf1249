package probe_test

import (
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/circuit"
	"github.com/gatewaycircuit/gatewaycircuit/internal/policyerr"
	"github.com/gatewaycircuit/gatewaycircuit/internal/probe"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
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
	d, id := t.g.Decide(now)
	if d == probe.Closed {
		return "send", 0
	}
	return d.String(), id
}

// answer reports the response to a request sent as probe id (0: a normal one).
func (t *tab) answer(now int64, id uint32, status int) {
	if id == 0 {
		if t.b.Observe(now, status) {
			t.g.Armed(t.b.State().Until, status)
		}
		return
	}
	p := t.b.Policy()
	if status == 0 || p.Trips(status) {
		if r, ok := t.g.Failed(now, id, status); ok {
			_, _ = t.b.Arm(now, r.Status, r.TTLMs)
		}
		return
	}
	t.g.Succeeded(id)
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
	clear       bool
	wantUntil   int64 // breaker until, as an offset from t0, when non-zero
}

func run(t *testing.T, p probe.Policy, steps []step) {
	t.Helper()
	b, err := circuit.New(circuit.Policy{Scope: []string{"http://app.test/api/"}}, store.NewMemory())
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
			{requests: 1, wantEach: "send", answerProbe: -1, status: 502, wantUntil: 2_040_000 + 120_000},
		}},
		{"a network failure re-arms with the status the circuit had", probe.Policy{TTLMs: 1000, MaxTTLMs: 60_000}, []step{
			{requests: 1, wantEach: "send", answerProbe: -1, status: 504, wantUntil: 120_000},
			{advance: 120_000, requests: 1, wantEach: "probe", answerProbe: 1, status: 0, wantUntil: 122_000},
		}},
		{"an abandoned probe hands over to the next request", probe.Policy{}, []step{
			trip,
			{advance: 120_000, requests: 1, wantEach: "probe"},
			{requests: 2, wantEach: "wait", abandon: 1},
			{requests: 1, wantEach: "probe"},
			{requests: 1, wantEach: "wait", answerProbe: 1, status: 502}, // the old one's late answer: ignored
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
			{requests: 3, wantEach: "send", answerProbe: -1, status: 502, wantUntil: 120_000 + 120_000},
			{advance: 120_000, requests: 1, wantEach: "probe"},
		}},
		{"disabled: the stampede of today", probe.Policy{Disabled: true}, []step{
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
	g.Armed(t0, 502)
	_, id := g.Decide(t0)
	if g.Succeeded(id+1) || g.Succeeded(0) {
		t.Fatal("Succeeded accepted an id that is not the probe")
	}
	if _, ok := g.Failed(t0, id+1, 502); ok {
		t.Fatal("Failed accepted an id that is not the probe")
	}
	g.Abandoned(id + 1)
	if d, got := g.Decide(t0); d != probe.Wait || got != id {
		t.Fatalf("Decide = %v %d, want wait on %d", d, got, id)
	}
}

func TestPolicyValidateNamesTheField(t *testing.T) {
	for _, c := range []struct {
		p     probe.Policy
		field string
	}{
		{probe.Policy{TTLMs: -1}, "ttlMs"},
		{probe.Policy{MaxTTLMs: -1}, "maxTtlMs"},
		{probe.Policy{TTLMs: 700_000}, "ttlMs"},
		{probe.Policy{ProbeTimeoutMs: -1}, "probeTimeoutMs"},
	} {
		_, err := probe.New(c.p)
		if got := policyerr.Field(err, probe.ErrInvalidPolicy); got != c.field {
			t.Errorf("New(%+v) err = %v, want a policy error for %s", c.p, err, c.field)
		}
	}
}
