package circuit_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/circuit"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
	"github.com/gatewaycircuit/gatewaycircuit/policy/policyerr"
)

const (
	t0    = int64(1_700_000_000_000)
	api   = "http://app.test/api/users"
	other = "http://app.test/static/logo.png"
)

// step is one line of a script run against a Breaker on a fake clock.
// The clock advances first, then at most one action runs, then the wants are checked.
type step struct {
	advance int64  // ms
	observe int    // status (-1: no answer, status 0)
	took    int64  // how long the observed request was in flight: sent at now-took, answered now
	key     string // the observed request's Key (Span.Key)
	ra      int64  // the observed answer's Retry-After, in ms (0: none)
	arm     int    // status, with armTTL
	armTTL  int64  //
	clear   bool   //
	load    bool   // a new page of the tab (a navigation): a new Breaker over the same store
	reload  bool   // the same, a reload of the page before it (F5): Load, then Reloaded
	stored  string // write this raw payload into the store first ("-" deletes)
	scoutID uint32 // the observed request's Span.Scout
	scout   string // ask Scout for this key (timeout 30 s), checked against wantScout
	ended   uint32 // ScoutEnded(this): the scout was aborted, or its answer opaque

	decide      string // URL to decide for, checked against wantDecision
	wantDec     circuit.Decision
	wantArmed   *bool
	wantPhase   *circuit.Phase
	wantStrikes int
	wantUntil   int64 // offset from t0, when non-zero
	wantRaw     *string
	wantScout   circuit.ScoutDecision
	wantScoutID uint32
}

func ptr[T any](v T) *T { return &v }

// answered is the span of a request answered at ms after 10 ms in flight.
func answered(ms int64) circuit.Span { return circuit.Span{SentMs: ms - 10, AnsweredMs: ms} }

func run(t *testing.T, p circuit.Policy, steps []step) {
	t.Helper()
	mem := store.NewMemory()
	now := t0
	b, err := circuit.New(p, mem)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range steps {
		switch {
		case s.stored == "-":
			_ = mem.Delete(circuit.StorageKey)
		case s.stored != "":
			_ = mem.Set(circuit.StorageKey, s.stored)
		}
		now += s.advance
		switch {
		case s.observe != 0:
			status, ra := max(s.observe, 0), int64(circuit.NoRetryAfter)
			if s.ra != 0 {
				ra = s.ra
			}
			b.Observe(now, circuit.Span{SentMs: now - s.took, AnsweredMs: now, Key: s.key, Scout: s.scoutID}, status, ra)
		case s.arm != 0:
			if _, err := b.Arm(now, s.arm, s.armTTL); err != nil {
				t.Fatalf("step %d: Arm: %v", i, err)
			}
		case s.clear:
			b.Clear()
		case s.load || s.reload:
			if b, err = circuit.New(p, mem); err != nil {
				t.Fatal(err)
			}
			b.Load(now)
			if s.reload {
				b.Reloaded()
			}
		case s.ended != 0:
			b.ScoutEnded(s.ended)
		case s.scout != "":
			if d, id := b.Scout(now, s.scout, 30_000); d != s.wantScout || id != s.wantScoutID {
				t.Fatalf("step %d: Scout(%s) = %v %d, want %v %d", i, s.scout, d, id, s.wantScout, s.wantScoutID)
			}
		case s.decide != "":
			if got := b.Decide(now, s.decide); got != s.wantDec {
				t.Fatalf("step %d: Decide(%s) = %v, want %v", i, s.decide, got, s.wantDec)
			}
		}
		if s.wantArmed != nil {
			st, armed := b.Read(now)
			if armed != *s.wantArmed {
				t.Fatalf("step %d: armed = %v, want %v (%+v)", i, armed, *s.wantArmed, st)
			}
			if s.wantUntil != 0 && st.Until != t0+s.wantUntil {
				t.Fatalf("step %d: until = t0%+d, want t0%+d", i, st.Until-t0, s.wantUntil)
			}
		}
		if s.wantPhase != nil {
			if got := b.Phase(now); got != *s.wantPhase {
				t.Fatalf("step %d: phase = %v, want %v (%+v)", i, got, *s.wantPhase, b.State())
			}
			if got := b.State().Strikes; got != s.wantStrikes {
				t.Fatalf("step %d: strikes = %d, want %d", i, got, s.wantStrikes)
			}
		}
		if s.wantRaw != nil {
			raw, ok, _ := mem.Get(circuit.StorageKey)
			if !ok {
				raw = "-"
			}
			if raw != *s.wantRaw {
				t.Fatalf("step %d: stored %q, want %q", i, raw, *s.wantRaw)
			}
		}
	}
}

// scope is the policy the rule tests use: a 120 s open period, capped at
// 600 s, so the rules read in round numbers. TestDefaults checks the defaults.
var scope = circuit.Policy{Scope: []string{"http://app.test/api/"}, TTLMs: 120_000, MaxTTLMs: 600_000}

const (
	// what a plain trip at t0 stores: until t0+120 s, half-open for 600 s more
	tripped502 = `{"until":1700000120000,"httpStatus":502,"halfOpenUntil":1700000720000}`
)

func TestBreakerScripts(t *testing.T) {
	yes, no := ptr(true), ptr(false)
	closed, open, halfOpen := ptr(circuit.Closed), ptr(circuit.Open), ptr(circuit.HalfOpen)
	tests := []struct {
		name  string
		p     circuit.Policy
		steps []step
	}{
		{"502 arms for the default TTL and survives a reload", scope, []step{
			{decide: api, wantDec: circuit.Allow},
			{observe: 502, wantArmed: yes, wantUntil: 120_000, wantRaw: ptr(tripped502)},
			{decide: api, wantDec: circuit.Block},
			{advance: 1000},
			{load: true, wantArmed: yes, wantUntil: 120_000},
			{decide: api, wantDec: circuit.Block},
			{decide: other, wantDec: circuit.Pass},
		}},
		{"expiry is half-open, and the half-open period ends closed and removed", scope, []step{
			{observe: 504},
			{advance: 119_999, decide: api, wantDec: circuit.Block},
			{advance: 1, wantPhase: halfOpen},
			{decide: api, wantDec: circuit.Allow, wantArmed: no, wantRaw: ptr(`{"until":1700000120000,"httpStatus":504,"halfOpenUntil":1700000720000}`)},
			{advance: 599_999, wantPhase: halfOpen},
			{advance: 1, wantPhase: closed, wantRaw: ptr("-")},
		}},
		{"half-open: a success closes", scope, []step{
			{observe: 502},
			{advance: 120_000, wantPhase: halfOpen},
			{observe: 200, wantPhase: closed, wantRaw: ptr("-")},
		}},
		{"half-open: failures re-arm with the TTL doubled, across reloads, up to the max", scope, []step{
			{observe: 502},
			{advance: 120_000, load: true, wantPhase: halfOpen},
			{observe: 502, wantPhase: open, wantStrikes: 1, wantUntil: 120_000 + 240_000,
				wantRaw: ptr(`{"until":1700000360000,"httpStatus":502,"strikes":1,"halfOpenUntil":1700000960000}`)},
			{advance: 240_000, load: true, wantPhase: halfOpen, wantStrikes: 1},
			{observe: -1, wantPhase: open, wantStrikes: 2, wantUntil: 360_000 + 480_000}, // no answer at all: still down
			{advance: 480_000, observe: 503, wantPhase: open, wantStrikes: 3, wantUntil: 840_000 + 600_000},
			{advance: 600_000, took: 20, observe: 200, wantPhase: closed},
			{took: 10, observe: 502, wantPhase: closed}, // in flight with that success: partial
			{advance: 3000, observe: 502, wantPhase: open, wantStrikes: 0, wantUntil: 1_443_000 + 120_000},
		}},
		{"half-open: a 503's Retry-After is the TTL", scope, []step{
			{observe: 502},
			{advance: 120_000, observe: 503, ra: 30_000, wantPhase: open, wantStrikes: 1, wantUntil: 150_000},
		}},
		{"no answer does not arm a closed circuit", scope, []step{
			{observe: -1, wantPhase: closed, wantRaw: ptr("-")},
		}},
		{"4xx, 429 and 500 do not arm", scope, []step{
			{observe: 400, wantArmed: no},
			{observe: 404, wantArmed: no},
			{observe: 429, wantArmed: no},
			{observe: 500, wantArmed: no, wantRaw: ptr("-")},
			{decide: api, wantDec: circuit.Allow},
		}},
		{"stragglers do not extend an armed circuit", scope, []step{
			{observe: 502},
			{advance: 5000, observe: 503, wantArmed: yes, wantUntil: 120_000},
		}},
		{"the gateway dies after a success: the first failure arms", scope, []step{
			{took: 40, observe: 200},
			{advance: 300, took: 20, observe: 502, wantArmed: yes, wantUntil: 300 + 120_000}, // sent 280 ms after the success came back
			{advance: 400, took: 5, observe: 200, wantArmed: yes},                            // sent well after the failure came back: history
		}},
		{"a success answered the moment the failing request was sent is history", scope, []step{
			{took: 300, observe: 200},
			{took: 30, advance: 30, observe: 503, wantArmed: yes}, // sent at the success's answer, not before it
		}},
		{"a rate limiter: a failure while a success was in flight does not arm", scope, []step{
			{took: 150, observe: 200},                              // sent at t0-150, answered at t0
			{advance: 1, took: 140, observe: 503, wantArmed: no},   // sent before the success came back
			{advance: 1, took: 152, observe: 503, wantArmed: no},   // sent before the success was sent: still together
			{advance: 300, took: 10, observe: 503, wantArmed: yes}, // sent well after it: the gateway is not answering now
		}},
		{"one upstream down: the retries of a request that failed partially arm nothing; another failing alone still arms", scope, []step{
			{took: 100, observe: 200, key: "a"},
			{took: 10, observe: 502, key: "b", wantArmed: no},                // in flight with the success: partial
			{advance: 1000, took: 10, observe: 502, key: "b", wantArmed: no}, // the app's retry, alone: the same partial failure
			{advance: 2000, took: 10, observe: 502, key: "b", wantArmed: no},
			{advance: 1000, took: 10, observe: 502, wantArmed: yes}, // unkeyed (a mutation): the rule as ever
		}},
		{"one upstream down: a failure that armed, withdrawn by a success of its burst, failed partially", scope, []step{
			{took: 10, observe: 502, key: "b", wantArmed: yes},               // the dead upstream answers first
			{took: 20, observe: 200, key: "a", wantArmed: no},                // a success sent with it: withdrawn
			{advance: 1000, took: 10, observe: 502, key: "b", wantArmed: no}, // its retry, alone
		}},
		{"one upstream down: the partial failure is remembered for the max TTL, then a failure of it alone arms", scope, []step{
			{took: 100, observe: 200, key: "a"},
			{took: 10, observe: 502, key: "b", wantArmed: no},
			{advance: 599_999, took: 10, observe: 502, key: "b", wantArmed: no},
			{advance: 1, took: 10, observe: 502, key: "b", wantArmed: yes},
		}},
		{"one upstream down: a request failing alone with another key arms (the whole gateway may be down now)", scope, []step{
			{took: 100, observe: 200, key: "a"},
			{took: 10, observe: 502, key: "b", wantArmed: no},
			{advance: 1000, took: 10, observe: 502, key: "c", wantArmed: yes},
		}},
		{"one burst: a success sent with the failure keeps it closed, though it came back first (a wave of retries)", scope, []step{
			{took: 3, observe: 200},                            // sent at t0-3
			{advance: 8, took: 2, observe: 503, wantArmed: no}, // sent 9 ms after it, on a connection the browser freed
			{advance: 300, took: 2, observe: 503, wantArmed: yes},
		}},
		{"a long request answered meanwhile keeps a failure from arming", scope, []step{
			{took: 30_000, observe: 200},
			{advance: 1, took: 5_000, observe: 504, wantArmed: no},
		}},
		{"a rate limiter: a success of a request in flight with the failure withdraws the trip", scope, []step{
			{took: 3, observe: 503, wantArmed: yes, wantRaw: ptr(`{"until":1700000120000,"httpStatus":503,"halfOpenUntil":1700000720000}`)},
			{advance: 1, took: 4, observe: 503},
			{advance: 5, took: 10, observe: 200, wantPhase: closed, wantRaw: ptr("-")}, // sent 4 ms before the failure came back
			{advance: 1, took: 5, observe: 503, wantArmed: no},                         // and it keeps the next one of the burst closed
		}},
		{"a success sent after the failure came back does not withdraw the trip", scope, []step{
			{took: 3, observe: 502},
			{advance: 300, took: 4, observe: 200, wantArmed: yes, wantUntil: 120_000},
		}},
		{"a success of a request in flight with the failure withdraws it however late", scope, []step{
			{took: 3, observe: 504},
			{advance: 8_000, took: 9_000, observe: 200, wantPhase: closed},
		}},
		{"a manual arm is never withdrawn by a success", scope, []step{
			{arm: 503, armTTL: 5000},
			{advance: 1, took: 1_000, observe: 200, wantArmed: yes, wantUntil: 5000},
		}},
		{"a restored circuit is not withdrawn by a success", scope, []step{
			{took: 1, observe: 502},
			{advance: 1, load: true},
			{advance: 1, took: 1_000, observe: 200, wantArmed: yes, wantUntil: 120_000},
		}},
		{"503 with Retry-After arms for it, capped, by the same rule", scope, []step{
			{observe: 503, ra: 30_000, wantArmed: yes, wantUntil: 30_000},
			{clear: true},
			{observe: 503, ra: 9_999_000, wantArmed: yes, wantUntil: 600_000},
			{clear: true},
			{observe: 503, ra: 500, wantArmed: yes, wantUntil: 120_000}, // under 1 s: the TTL
			{clear: true},
			{observe: 502, ra: 30_000, wantArmed: yes, wantUntil: 120_000}, // only a 503's
			{clear: true},
			{took: 10, observe: 200},
			{advance: 1, took: 10, observe: 503, ra: 30_000, wantArmed: no}, // partial, Retry-After or not
		}},
		{"min failures: N trip statuses within W", circuit.Policy{Scope: scope.Scope, TTLMs: scope.TTLMs, MaxTTLMs: scope.MaxTTLMs, TripMinFailures: 3}, []step{
			{observe: 503, wantArmed: no},
			{advance: 1000, observe: 503, wantArmed: no},
			{advance: 2000, observe: 503, wantArmed: no}, // the run started 3 s ago: a new run
			{advance: 100, observe: 503, wantArmed: no},
			{advance: 100, observe: 503, wantArmed: yes, wantUntil: 3200 + 120_000},
		}},
		{"min failures: a success resets the run", circuit.Policy{Scope: scope.Scope, TTLMs: scope.TTLMs, MaxTTLMs: scope.MaxTTLMs, TripMinFailures: 2, TripWindowMs: 1000}, []step{
			{observe: 502},
			{advance: 10, observe: 200},
			{advance: 300, observe: 502, wantArmed: no}, // the second failure, but a success came between
			{advance: 10, observe: 502, wantArmed: yes},
		}},
		{"clear closes and removes", scope, []step{
			{observe: 502},
			{clear: true, wantArmed: no, wantRaw: ptr("-")},
			{decide: api, wantDec: circuit.Allow},
		}},
		{"clear ends the half-open memory and the strikes", scope, []step{
			{observe: 502},
			{advance: 120_000, observe: 502, wantStrikes: 1, wantPhase: open},
			{clear: true, wantPhase: closed, wantRaw: ptr("-")},
			{advance: 3000, observe: 502, wantStrikes: 0, wantPhase: open, wantUntil: 123_000 + 120_000},
		}},
		{"clear removes an entry written behind our back", scope, []step{
			{stored: `{"until":1700000005000,"httpStatus":502}`},
			{clear: true, wantRaw: ptr("-")},
		}},
		{"arm with a TTL, capped at max TTL", scope, []step{
			{arm: 503, armTTL: 5000, wantArmed: yes, wantUntil: 5000},
			{arm: 502, armTTL: 999_999_999, wantArmed: yes, wantUntil: 600_000},
			{arm: 502, armTTL: 0, wantArmed: yes, wantUntil: 120_000},
		}},
		{"a poisoned far-future entry is clamped on load and written back", scope, []step{
			{stored: `{"until":253402300799000,"httpStatus":502}`},
			{load: true, wantArmed: yes, wantUntil: 600_000, wantRaw: ptr(`{"until":1700000600000,"httpStatus":502}`)},
			{advance: 600_000, load: true, wantArmed: no, wantRaw: ptr("-")},
		}},
		{"the seed's format expires closed: no half-open without halfOpenUntil", scope, []step{
			{stored: `{"until":1700000005000,"httpStatus":502}`},
			{load: true, wantPhase: open},
			{advance: 5000, wantPhase: closed, wantRaw: ptr("-")},
		}},
		{"a stored half-open entry sends one probe's worth: the next failure doubles", scope, []step{
			{stored: `{"until":1699999990000,"httpStatus":502,"strikes":2,"halfOpenUntil":1700000100000}`},
			{load: true, wantPhase: halfOpen, wantStrikes: 2},
			{observe: 502, wantPhase: open, wantStrikes: 3, wantUntil: 600_000}, // 120 s × 8 > max
		}},
		{"a malformed entry is closed and removed on load", scope, []step{
			{stored: `{"until":"later","httpStatus":502}`},
			{load: true, wantArmed: no, wantRaw: ptr("-")},
		}},
		{"custom trip statuses and TTL", circuit.Policy{Scope: scope.Scope, TTLMs: 3000, MaxTTLMs: scope.MaxTTLMs, TripStatuses: []int{500}}, []step{
			{observe: 502, wantArmed: no},
			{advance: 3000, observe: 500, wantArmed: yes, wantUntil: 6000}, // 502 is a success here
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { run(t, tt.p, tt.steps) })
	}
}

// TestScouts: while an open period the trip rule armed in this page lasts,
// one request at a time whose key it has not seen asks the gateway.
func TestScouts(t *testing.T) {
	yes, no := ptr(true), ptr(false)
	none, send, wait := circuit.ScoutNone, circuit.ScoutSend, circuit.ScoutWait
	tests := []struct {
		name  string
		steps []step
	}{
		{"one upstream down, then a healthy one: its scout's success withdraws the trip, and the dead keys failed partially", []step{
			{observe: 502, took: 10, key: "b0", wantArmed: yes},
			{observe: 502, took: 10, key: "b1", wantArmed: yes}, // a straggler
			{advance: 2000, scout: "a0", wantScout: send, wantScoutID: 1},
			{scout: "a1", wantScout: wait, wantScoutID: 1},
			{scout: "a0", wantScout: wait, wantScoutID: 1}, // the same request again: the scout's answer is its answer
			{scout: "b0", wantScout: none},                 // failed in the open period
			{advance: 20, observe: 200, took: 20, key: "a0", scoutID: 1, wantArmed: no},
			{advance: 1000, observe: 502, took: 10, key: "b1", wantArmed: no}, // the app's retry of a dead key, alone
			{observe: 502, took: 10, key: "b0", wantArmed: no},
			{observe: 502, took: 10, key: "c", wantArmed: yes}, // another key failing alone still arms
		}},
		{"a failed scout is the open period's one: the waiters and every new key after it are answered open", []step{
			{observe: 502, took: 10, key: "k0", wantArmed: yes},
			{advance: 1000, scout: "a", wantScout: send, wantScoutID: 1},
			{scout: "b", wantScout: wait, wantScoutID: 1},
			{advance: 10, observe: 502, took: 10, key: "a", scoutID: 1, wantArmed: yes, wantUntil: 120_000},
			{scout: "a", wantScout: none},
			{scout: "b", wantScout: none},
			{scout: "c", wantScout: none}, // a new key: the outage's stream of new keys does not go out one by one
			{advance: 60_000, scout: "d", wantScout: none},
		}},
		{"a scout with no answer has failed too", []step{
			{observe: 502, took: 10, key: "k0", wantArmed: yes},
			{advance: 1000, scout: "a", wantScout: send, wantScoutID: 1},
			{advance: 10, observe: -1, took: 10, key: "a", scoutID: 1, wantArmed: yes},
			{scout: "c", wantScout: none},
		}},
		{"the next open period has a scout of its own", []step{
			{observe: 502, took: 10, key: "k0", wantArmed: yes},
			{advance: 1000, scout: "a", wantScout: send, wantScoutID: 1},
			{advance: 10, observe: 502, took: 10, key: "a", scoutID: 1, wantArmed: yes},
			{clear: true},
			{advance: 10, observe: 502, took: 10, key: "k1", wantArmed: yes},
			{scout: "c", wantScout: send, wantScoutID: 2},
		}},
		{"a scout that ends with nothing to observe (aborted, opaque) frees the slot once", []step{
			{observe: 502, took: 10, key: "k0", wantArmed: yes},
			{advance: 1000, scout: "a", wantScout: send, wantScoutID: 1},
			{scout: "b", wantScout: wait, wantScoutID: 1},
			{ended: 1},
			{scout: "b", wantScout: none}, // it waited: seen
			{scout: "c", wantScout: send, wantScoutID: 2},
			{ended: 2},
			{scout: "d", wantScout: none},
		}},
		{"a request without a key never scouts", []step{
			{observe: 502, took: 10, key: "k0", wantArmed: yes},
			{scout: "", wantScout: none},
		}},
		{"after F5 the keys the period has seen are answered open: the outage's reloads send nothing", []step{
			{observe: 502, took: 10, key: "k0", wantArmed: yes},
			{observe: 502, took: 10, key: "k1", wantArmed: yes}, // a straggler
			{scout: "k2", wantScout: send, wantScoutID: 1},
			{scout: "k3", wantScout: wait, wantScoutID: 1},
			{advance: 10, observe: 502, took: 10, key: "k2", scoutID: 1, wantArmed: yes},
			{load: true, wantArmed: yes},
			{scout: "k0", wantScout: none},
			{scout: "k3", wantScout: none},
			{scout: "a", wantScout: none}, // the period's scout failed before F5
		}},
		{"F5 sends no scout, whatever it asks (a page in use whose gateway died had asked few of its keys); a page of other keys after it still may", []step{
			{observe: 502, took: 10, key: "k0", wantArmed: yes},
			{reload: true, wantArmed: yes},
			{scout: "k1", wantScout: none},
			{reload: true, wantArmed: yes},
			{scout: "k2", wantScout: none},
			{load: true, wantArmed: yes},
			{scout: "a", wantScout: send, wantScoutID: 1},
		}},
		{"a page of other keys after a navigation sends its first as the scout; its success withdraws the trip", []step{
			{observe: 502, took: 10, key: "b0", wantArmed: yes},
			{observe: 502, took: 10, key: "b1", wantArmed: yes},
			{advance: 500, load: true, wantArmed: yes},
			{scout: "b0", wantScout: none},
			{scout: "b1", wantScout: none},
			{scout: "a0", wantScout: send, wantScoutID: 1},
			{scout: "a1", wantScout: wait, wantScoutID: 1},
			{advance: 20, observe: 200, took: 20, key: "a0", scoutID: 1, wantArmed: no},
			{advance: 1000, observe: 502, took: 10, key: "b1", wantArmed: no}, // a dead key, alone: failed partially
			{observe: 502, took: 10, key: "c", wantArmed: yes},
		}},
		{"a scout in flight when the page went away frees the slot once: reloads during a hang send one scout each at most twice", []step{
			{observe: 502, took: 10, key: "k0", wantArmed: yes},
			{scout: "a", wantScout: send, wantScoutID: 1},
			{load: true, wantArmed: yes},
			{scout: "a", wantScout: none}, // seen before the page went
			{scout: "b", wantScout: send, wantScoutID: 1},
			{load: true, wantArmed: yes},
			{scout: "c", wantScout: none},
			{load: true, wantArmed: yes},
			{scout: "d", wantScout: none},
		}},
		{"the app's Arm has no scouts, nor does a failed probe's open period, nor after F5", []step{
			{arm: 503, wantArmed: yes},
			{scout: "a", wantScout: none},
			{load: true, wantArmed: yes},
			{scout: "a", wantScout: none},
			{clear: true},
			{observe: 502, took: 10, key: "k0", wantArmed: yes},
			{advance: 120_000, observe: 502, took: 10, key: "p", wantArmed: yes}, // the half-open probe failed
			{scout: "b", wantScout: none},
		}},
		{"a scout unanswered for the timeout has failed; its late success is no scout's", []step{
			{observe: 502, took: 10, key: "k0", wantArmed: yes},
			{advance: 1000, scout: "a", wantScout: send, wantScoutID: 1},
			{advance: 29_999, scout: "b", wantScout: wait, wantScoutID: 1},
			{advance: 1, scout: "c", wantScout: none},
			{observe: 200, took: 30_000, key: "a", scoutID: 1, wantArmed: yes},
			{scout: "d", wantScout: none},
		}},
		{"a limiter's trip withdrawn by its burst: the stragglers failed partially too", []step{
			{observe: 503, took: 10, key: "k1", wantArmed: yes},
			{advance: 5, observe: 503, took: 10, key: "k2", wantArmed: yes},
			{advance: 50, observe: 200, took: 100, key: "k3", wantArmed: no},
			{advance: 1000, observe: 503, took: 10, key: "k2", wantArmed: no}, // its retry, alone
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { run(t, scope, tt.steps) })
	}
}

// What the scouting stores for the next page (circuit.ScoutKey): the keys
// as hashes, tied to its open period; anything else found there is removed
// and gives no scout.
func TestScoutRecord(t *testing.T) {
	mem := store.NewMemory()
	b, err := circuit.New(scope, mem)
	if err != nil {
		t.Fatal(err)
	}
	b.Observe(t0, circuit.Span{SentMs: t0 - 10, AnsweredMs: t0, Key: api + "?secret=1"}, 502, circuit.NoRetryAfter)
	raw, ok, _ := mem.Get(circuit.ScoutKey)
	if !ok || !strings.HasPrefix(raw, "1700000120000 0 !") || strings.Contains(raw, "secret") || len(raw) > 40 {
		t.Fatalf("stored %q (%v), want the period's until, no flags and one failed key as a hash", raw, ok)
	}
	loads := func(record string) circuit.ScoutDecision {
		t.Helper()
		_ = mem.Set(circuit.ScoutKey, record)
		b, _ := circuit.New(scope, mem)
		b.Load(t0 + 1000)
		d, _ := b.Scout(t0+1000, "new", 30_000)
		if _, kept, _ := mem.Get(circuit.ScoutKey); d == circuit.ScoutNone && kept {
			t.Fatalf("record %q: no scout, but the record stays", record)
		}
		return d
	}
	if d := loads(raw); d != circuit.ScoutSend {
		t.Fatalf("its own record: %v, want send", d)
	}
	for _, bad := range []string{"1700000120001 0 x", "1700000120000", "1700000120000 4 x", "1700000120000 - x", "garbage", ""} {
		if d := loads(bad); d != circuit.ScoutNone {
			t.Fatalf("record %q: %v, want none", bad, d)
		}
	}
	b, _ = circuit.New(scope, mem)
	_ = mem.Set(circuit.ScoutKey, raw)
	b.Load(t0 + 1000)
	b.Clear()
	if _, kept, _ := mem.Get(circuit.ScoutKey); kept {
		t.Fatal("Clear left the scouting stored")
	}
}

// The keys an open period has seen are bounded: the oldest forgotten may
// scout again.
func TestSeenKeysAreBounded(t *testing.T) {
	b, err := circuit.New(scope, store.NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	now := t0
	b.Observe(now, circuit.Span{SentMs: now - 10, AnsweredMs: now, Key: "k0"}, 502, circuit.NoRetryAfter)
	if d, _ := b.Scout(now, "scout", 30_000); d != circuit.ScoutSend {
		t.Fatalf("first new key: %v, want send", d)
	}
	for i := range circuit.MaxSeenKeys {
		b.Scout(now, fmt.Sprint("a", i), 30_000) // each waits for the scout, and is seen
	}
	b.ScoutEnded(1) // aborted: the slot is free once more
	if d, _ := b.Scout(now, "a1", 30_000); d != circuit.ScoutNone {
		t.Fatalf("a remembered key: %v, want none", d)
	}
	if d, _ := b.Scout(now, "k0", 30_000); d != circuit.ScoutSend {
		t.Fatalf("the forgotten (oldest) key: %v, want send", d)
	}
}

// TestClockJumpBack: every read clamps the deadline to now + MaxTTLMs, the
// one in memory too, so Date.now() going back an hour cannot block for 62 min.
func TestClockJumpBack(t *testing.T) {
	mem := store.NewMemory()
	b, _ := circuit.New(scope, mem)
	b.Observe(t0, answered(t0), 502, circuit.NoRetryAfter)
	back := t0 - 3_600_000
	s, armed := b.Read(back)
	if !armed || s.Until != back+600_000 || s.HalfOpenUntil != back+1_200_000 {
		t.Fatalf("Read after the clock went back an hour = %+v, %v; want until now+600 s", s, armed)
	}
	if raw, _, _ := mem.Get(circuit.StorageKey); raw != s.Payload() {
		t.Fatalf("stored %s, want the clamped %s", raw, s.Payload())
	}
}

// failing is a store whose every call fails, like sessionStorage in a
// sandboxed iframe.
type failing struct{}

func (failing) Get(string) (string, bool, error) { return "", false, store.ErrUnavailable }
func (failing) Set(string, string) error         { return store.ErrUnavailable }
func (failing) Delete(string) error              { return store.ErrUnavailable }

func TestStorageFailureKeepsWorkingInMemory(t *testing.T) {
	b, err := circuit.New(scope, failing{})
	if err != nil {
		t.Fatal(err)
	}
	if s := b.Load(t0); s.Armed(t0) {
		t.Fatalf("Load = %+v, want closed", s)
	}
	if !b.Observe(t0, answered(t0), 502, circuit.NoRetryAfter) || b.Decide(t0+1, api) != circuit.Block {
		t.Fatal("circuit did not arm in memory when storage fails")
	}
	if !errors.Is(b.LastStorageError(), store.ErrUnavailable) {
		t.Fatalf("LastStorageError = %v", b.LastStorageError())
	}
}

func TestVersionCountsChanges(t *testing.T) {
	b, _ := circuit.New(scope, store.NewMemory())
	v0 := b.Version()
	b.Observe(t0, answered(t0), 502, circuit.NoRetryAfter)
	b.Observe(t0+1, answered(t0+1), 502, circuit.NoRetryAfter) // no change
	if b.Version() != v0+1 {
		t.Fatalf("version = %d, want %d", b.Version(), v0+1)
	}
	b.Decide(t0+200_000, api) // half-open: a change of phase
	if b.Version() != v0+2 {
		t.Fatalf("version after expiry = %d, want %d", b.Version(), v0+2)
	}
	b.Decide(t0+800_000, api) // closed
	if b.Version() != v0+3 {
		t.Fatalf("version after the half-open period = %d, want %d", b.Version(), v0+3)
	}
}

func TestArmRejectsBadInput(t *testing.T) {
	b, _ := circuit.New(scope, store.NewMemory())
	for _, c := range []struct {
		status int
		ttl    int64
	}{{0, 0}, {99, 0}, {600, 0}, {502, -1}} {
		if _, err := b.Arm(t0, c.status, c.ttl); !errors.Is(err, circuit.ErrInvalidArm) {
			t.Errorf("Arm(%d, %d) err = %v, want ErrInvalidArm", c.status, c.ttl, err)
		}
	}
	if _, armed := b.Read(t0); armed {
		t.Fatal("a rejected Arm armed the circuit")
	}
}

func TestPolicyValidateNamesTheField(t *testing.T) {
	for _, c := range []struct {
		p     circuit.Policy
		field string
	}{
		{circuit.Policy{}, "scope"},
		{circuit.Policy{Scope: []string{"/api/"}}, "scope"},
		{circuit.Policy{Scope: scope.Scope, TTLMs: -1}, "ttlMs"},
		{circuit.Policy{Scope: scope.Scope, TTLMs: 700_000, MaxTTLMs: 600_000}, "ttlMs"},
		{circuit.Policy{Scope: scope.Scope, TTLMs: 130_000}, "ttlMs"}, // above the default cap
		{circuit.Policy{Scope: scope.Scope, MaxTTLMs: -5}, "maxTtlMs"},
		{circuit.Policy{Scope: scope.Scope, TripStatuses: []int{502, 1000}}, "tripStatuses"},
	} {
		_, err := circuit.New(c.p, store.NewMemory())
		if policyerr.Field(err, circuit.ErrInvalidPolicy) != c.field {
			t.Errorf("New(%+v) err = %v, want a policyerr.Error for %s", c.p, err, c.field)
		}
	}
}

// The partial keys are bounded: the 65th forgets the oldest, whose retry,
// alone, arms again; a newer one's still arms nothing.
func TestPartialKeysAreBounded(t *testing.T) {
	b, err := circuit.New(scope, store.NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	now := t0
	b.Observe(now, circuit.Span{SentMs: now - 100, AnsweredMs: now, Key: "ok"}, 200, circuit.NoRetryAfter)
	for i := range circuit.MaxPartialKeys + 1 {
		b.Observe(now, circuit.Span{SentMs: now - 10, AnsweredMs: now, Key: fmt.Sprint("k", i)}, 502, circuit.NoRetryAfter)
		now++
	}
	now += 1000
	if b.Observe(now, circuit.Span{SentMs: now - 10, AnsweredMs: now, Key: "k1"}, 502, circuit.NoRetryAfter) {
		t.Fatal("the retry of a remembered partial failure armed")
	}
	if !b.Observe(now, circuit.Span{SentMs: now - 10, AnsweredMs: now, Key: "k0"}, 502, circuit.NoRetryAfter) {
		t.Fatal("the retry of the forgotten (oldest) partial failure did not arm")
	}
}

// TestDefaults: the first open period is 5 s; each failed probe doubles it,
// up to 120 s. A gateway that is back is used again within seconds, and a
// 10-minute outage costs a tab about ten probes.
func TestDefaults(t *testing.T) {
	b, _ := circuit.New(circuit.Policy{Scope: scope.Scope}, store.NewMemory())
	now := t0
	b.Observe(now, answered(now), 502, circuit.NoRetryAfter)
	var periods []int64
	probes := 0
	for now < t0+600_000 {
		s, _ := b.Read(now)
		periods = append(periods, s.Until-now)
		now = s.Until // the period ends: the probe goes out and fails
		if d := b.Decide(now, api); d != circuit.Allow {
			t.Fatalf("at %d s: Decide = %v, want the probe sent", (now-t0)/1000, d)
		}
		probes++
		b.Observe(now, circuit.Span{SentMs: now, AnsweredMs: now}, 502, circuit.NoRetryAfter)
	}
	want := []int64{5_000, 10_000, 20_000, 40_000, 80_000, 120_000}
	for i, w := range want {
		if periods[i] != w {
			t.Fatalf("open periods %v, want %v first", periods, want)
		}
	}
	if probes > 10 {
		t.Fatalf("a 10-minute outage cost %d probes, want at most 10", probes)
	}
}
