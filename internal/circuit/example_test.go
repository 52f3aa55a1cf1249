package circuit_test

import (
	"fmt"

	"github.com/gatewaycircuit/gatewaycircuit/internal/circuit"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
)

func Example() {
	sessionStorage := store.NewMemory()
	b, _ := circuit.New(circuit.Policy{Scope: []string{"https://app.example/api/"}}, sessionStorage)
	now := int64(1_700_000_000_000)

	fmt.Println(b.Decide(now, "https://app.example/api/me") == circuit.Allow)
	b.Observe(now, circuit.Span{SentMs: now - 30, AnsweredMs: now}, 502, circuit.NoRetryAfter) // the gateway is down
	fmt.Println(b.Decide(now+1, "https://app.example/api/me") == circuit.Block)

	// F5: a new page, the same tab's storage.
	reloaded, _ := circuit.New(circuit.Policy{Scope: []string{"https://app.example/api/"}}, sessionStorage)
	reloaded.Load(now + 2000)
	fmt.Println(reloaded.Decide(now+2000, "https://app.example/api/me") == circuit.Block)
	raw, _, _ := sessionStorage.Get(circuit.StorageKey)
	fmt.Println(raw)
	// Output:
	// true
	// true
	// true
	// {"until":1700000005000,"httpStatus":502,"halfOpenUntil":1700000125000}
}

func ExampleRestore() {
	now := int64(1_700_000_000_000)
	s, action := circuit.Restore(`{"until":253402300799000,"httpStatus":503}`, true, now, 600_000)
	fmt.Println(s.Until-now, action)
	_, action = circuit.Restore(`{"until":"soon"}`, true, now, 600_000)
	fmt.Println(action)
	// Output:
	// 600000 rewrite
	// remove
}

// One upstream behind the gateway is down and armed the circuit; the app
// then asks another upstream. Its first request is the open period's scout;
// the gateway answers it, so the trip is withdrawn, and the dead upstream's
// retry, alone, arms nothing.
func ExampleBreaker_Scout() {
	b, _ := circuit.New(circuit.Policy{Scope: []string{"https://app.example/api/"}}, store.NewMemory())
	now := int64(1_700_000_000_000)
	b.Observe(now, circuit.Span{SentMs: now - 30, AnsweredMs: now, Key: "/api/b/1"}, 502, circuit.NoRetryAfter)

	now += 2000
	d, id := b.Scout(now, "/api/a/1", 30_000)
	fmt.Println(d, id)
	fmt.Println(b.Scout(now, "/api/a/2", 30_000)) // waits for scout 1
	fmt.Println(b.Scout(now, "/api/b/1", 30_000)) // failed while open: answered open
	b.Observe(now+40, circuit.Span{SentMs: now, AnsweredMs: now + 40, Key: "/api/a/1", Scout: id}, 200, circuit.NoRetryAfter)
	fmt.Println(b.Phase(now + 40))

	now += 1000
	b.Observe(now, circuit.Span{SentMs: now - 30, AnsweredMs: now, Key: "/api/b/1"}, 502, circuit.NoRetryAfter)
	fmt.Println(b.Phase(now))
	// Output:
	// send 1
	// wait 1
	// none 0
	// closed
	// closed
}
