package probe_test

import (
	"fmt"

	"github.com/gatewaycircuit/gatewaycircuit/internal/probe"
)

func Example() {
	g, _ := probe.New(probe.Policy{}) // TTL 120 s, max 600 s, like the circuit
	now := int64(1_700_000_000_000)
	g.Armed(now+120_000, 502) // the breaker armed

	now += 120_000 // the TTL ends and three queries refetch at once
	for range 3 {
		d, id := g.Decide(now)
		fmt.Println(d, id)
	}
	r, _ := g.Failed(now+80, 1, 503) // the probe met a 503
	fmt.Println("re-arm", r.Status, r.TTLMs)
	// Output:
	// probe 1
	// wait 1
	// wait 1
	// re-arm 503 240000
}
