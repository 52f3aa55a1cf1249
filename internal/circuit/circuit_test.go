package circuit_test

import (
	"errors"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/circuit"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
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
	observe int    // status
	arm     int    // status, with armTTL
	armTTL  int64  //
	clear   bool   //
	load    bool   // a page reload: a new Breaker over the same store
	stored  string // write this raw payload into the store first ("-" deletes)

	decide    string // URL to decide for, checked against wantDecision
	wantDec   circuit.Decision
	wantArmed *bool
	wantUntil int64 // offset from t0, when non-zero
	wantRaw   *string
}

func ptr[T any](v T) *T { return &v }

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
			b.Observe(now, s.observe)
		case s.arm != 0:
			if _, err := b.Arm(now, s.arm, s.armTTL); err != nil {
				t.Fatalf("step %d: Arm: %v", i, err)
			}
		case s.clear:
			b.Clear()
		case s.load:
			if b, err = circuit.New(p, mem); err != nil {
				t.Fatal(err)
			}
			b.Load(now)
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

var scope = circuit.Policy{Scope: []string{"http://app.test/api/"}}

func TestBreakerScripts(t *testing.T) {
	yes, no := ptr(true), ptr(false)
	tests := []struct {
		name  string
		p     circuit.Policy
		steps []step
	}{
		{"502 arms for the default TTL and survives a reload", scope, []step{
			{decide: api, wantDec: circuit.Allow},
			{observe: 502, wantArmed: yes, wantUntil: 120_000, wantRaw: ptr(`{"until":1700000120000,"httpStatus":502}`)},
			{decide: api, wantDec: circuit.Block},
			{advance: 1000},
			{load: true, wantArmed: yes, wantUntil: 120_000},
			{decide: api, wantDec: circuit.Block},
			{decide: other, wantDec: circuit.Pass},
		}},
		{"expiry closes and removes the entry", scope, []step{
			{observe: 504},
			{advance: 119_999, decide: api, wantDec: circuit.Block},
			{advance: 1},
			{decide: api, wantDec: circuit.Allow, wantArmed: no, wantRaw: ptr("-")},
		}},
		{"4xx and 500 do not arm", scope, []step{
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
		{"clear closes and removes", scope, []step{
			{observe: 502},
			{clear: true, wantArmed: no, wantRaw: ptr("-")},
			{decide: api, wantDec: circuit.Allow},
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
		{"a malformed entry is closed and removed on load", scope, []step{
			{stored: `{"until":"later","httpStatus":502}`},
			{load: true, wantArmed: no, wantRaw: ptr("-")},
		}},
		{"custom trip statuses and TTL", circuit.Policy{Scope: scope.Scope, TTLMs: 3000, TripStatuses: []int{500}}, []step{
			{observe: 502, wantArmed: no},
			{observe: 500, wantArmed: yes, wantUntil: 3000},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { run(t, tt.p, tt.steps) })
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
	if !b.Observe(t0, 502) || b.Decide(t0+1, api) != circuit.Block {
		t.Fatal("circuit did not arm in memory when storage fails")
	}
	if !errors.Is(b.LastStorageError(), store.ErrUnavailable) {
		t.Fatalf("LastStorageError = %v", b.LastStorageError())
	}
}

func TestVersionCountsChanges(t *testing.T) {
	b, _ := circuit.New(scope, store.NewMemory())
	v0 := b.Version()
	b.Observe(t0, 502)
	b.Observe(t0+1, 502) // no change
	if b.Version() != v0+1 {
		t.Fatalf("version = %d, want %d", b.Version(), v0+1)
	}
	b.Decide(t0+200_000, api) // expiry is a change
	if b.Version() != v0+2 {
		t.Fatalf("version after expiry = %d, want %d", b.Version(), v0+2)
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
		{circuit.Policy{Scope: scope.Scope, TTLMs: 700_000}, "ttlMs"},
		{circuit.Policy{Scope: scope.Scope, MaxTTLMs: -5}, "maxTtlMs"},
		{circuit.Policy{Scope: scope.Scope, TripStatuses: []int{502, 1000}}, "tripStatuses"},
	} {
		_, err := circuit.New(c.p, store.NewMemory())
		var pe *circuit.PolicyError
		if !errors.As(err, &pe) || pe.Field != c.field || !errors.Is(err, circuit.ErrInvalidPolicy) {
			t.Errorf("New(%+v) err = %v, want a PolicyError for %s", c.p, err, c.field)
		}
	}
}
