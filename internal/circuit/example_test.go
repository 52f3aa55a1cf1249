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
	// {"until":1700000120000,"httpStatus":502,"halfOpenUntil":1700000720000}
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
