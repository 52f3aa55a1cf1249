package circuit_test

import (
	"strings"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/circuit"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
)

// FuzzBreaker drives a Breaker from whatever a previous page (or another
// script on the origin) left in storage, through a script of calls whose
// bytes the fuzzer picks, and checks what a user would notice:
//   - in-scope requests are blocked exactly while the circuit is armed, and
//     out-of-scope ones are never blocked;
//   - no state, and nothing written back to storage, lies further in the
//     future than now + MaxTTLMs (a poisoned entry is clamped on read), nor
//     is half-open for longer than MaxTTLMs after that;
//   - what is stored is either absent or a payload ParsePayload reads back
//     as the state in memory.
func FuzzBreaker(f *testing.F) {
	const now = int64(1_700_000_000_000)
	f.Add(`{"until":253402300799000,"httpStatus":503}`, "https://app.test/api/x", []byte{0, 1, 2, 3, 4, 5})
	f.Add(`{"until":1700000001000,"httpStatus":502}`, "https://app.test/outside", []byte{1, 1, 7, 0})
	f.Add("armed!", "", []byte{2, 200, 3, 255, 5})
	f.Add(`{"until":-9007199254740993,"httpStatus":599,"until":1e300}`, "https://app.test/api/", []byte{4, 9, 0, 0, 6})
	f.Fuzz(func(t *testing.T, stored, url string, script []byte) {
		p := circuit.Policy{TTLMs: 1_000, MaxTTLMs: 60_000, Scope: []string{"https://app.test/api/"}}
		mem := store.NewMemory()
		_ = mem.Set(circuit.StorageKey, stored)
		b, err := circuit.New(p, mem)
		if err != nil {
			t.Fatal(err)
		}
		clock := now
		check := func(step string) {
			t.Helper()
			s := b.State()
			if s.HTTPStatus != 0 && (s.Until > clock+p.MaxTTLMs || s.HalfOpenUntil > s.Until+p.MaxTTLMs) {
				t.Fatalf("%s: %+v lies beyond now+max TTL %d", step, s, clock+p.MaxTTLMs)
			}
			raw, ok, _ := mem.Get(circuit.StorageKey)
			if !ok {
				if s.Armed(clock) {
					t.Fatalf("%s: armed in memory (%+v) but nothing stored", step, s)
				}
				return
			}
			got, err := circuit.ParsePayload(raw)
			if err != nil || got != s {
				t.Fatalf("%s: stored %q (%v), in memory %+v", step, raw, err, s)
			}
		}
		b.Load(clock)
		check("load")
		for i := 0; i+1 < len(script); i += 2 {
			op, arg := script[i]%7, int64(script[i+1])
			switch op {
			case 0:
				clock += arg * 100 // up to 25.5 s
			case 1:
				statuses := [...]int{0, 200, 404, 429, 500, 502, 503, 504}
				span := circuit.Span{SentMs: clock - arg%5*10, AnsweredMs: clock} // in flight 0–40 ms
				b.Observe(clock, span, statuses[arg%8], arg/8*1000-1000)          // Retry-After: none, 0 s … 30 s
			case 2:
				_, _ = b.Arm(clock, 100+int(arg)*2, (arg-10)*1_000)
			case 3:
				b.Clear()
			case 4:
				b.Read(clock)
			case 5, 6:
				u := url
				if op == 6 {
					u = "https://app.test/api/" + url
				}
				d := b.Decide(clock, u)
				inScope := strings.HasPrefix(u, "https://app.test/api/")
				switch {
				case !inScope && d != circuit.Pass:
					t.Fatalf("out of scope %q: decision %v", u, d)
				case inScope && b.State().Armed(clock) != (d == circuit.Block):
					t.Fatalf("in scope %q: decision %v with state %+v at %d", u, d, b.State(), clock)
				}
			}
			check("step")
		}
	})
}
