package probe_test

import (
	"fmt"

	"github.com/gatewaycircuit/gatewaycircuit/internal/circuit"
	"github.com/gatewaycircuit/gatewaycircuit/internal/probe"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
)

func Example() {
	now := int64(1_700_000_000_000)
	b, _ := circuit.New(circuit.Policy{Scope: []string{"https://app.example/api/"}}, store.NewMemory())
	g, _ := probe.New(probe.Policy{})
	b.Observe(now, circuit.Span{SentMs: now - 30, AnsweredMs: now}, 502, circuit.NoRetryAfter) // the gateway is down: armed for 5 s

	now += 5_000 // the first open period ends and three queries refetch at once
	for range 3 {
		d, id := g.Decide(now, b.Phase(now) == circuit.HalfOpen)
		fmt.Println(d, id)
	}
	b.Observe(now+80, circuit.Span{SentMs: now, AnsweredMs: now + 80}, 503, circuit.NoRetryAfter) // the probe met a 503
	g.Failed(1)
	s, _ := b.Read(now + 80)
	fmt.Println("re-armed for", s.Until-(now+80), "strikes", s.Strikes)
	// Output:
	// probe 1
	// wait 1
	// wait 1
	// re-armed for 10000 strikes 1
}
