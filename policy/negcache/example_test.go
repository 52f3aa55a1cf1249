package negcache_test

import (
	"fmt"

	"github.com/gatewaycircuit/gatewaycircuit/policy/negcache"
)

func Example() {
	c, _ := negcache.New(negcache.Policy{})
	now := int64(1_700_000_000_000)
	key := "GET https://app.example/api/orders"

	// A healthy API's random 500 is not remembered: the app's retry goes out.
	fmt.Println("recorded:", c.Failed(now, key, false) != 0)

	// The circuit closes after an outage: for 30 s, a key that still fails
	// is not asked again at once.
	c.OutageEnded(now)

	if negcache.Failure(503) {
		until := c.Failed(now, key, true) // a stale copy can be shown meanwhile
		fmt.Println("remembered for", (until-now)/1000, "s")
	}
	_, hit := c.Decide(now+10_000, key) // a re-render 10 s later
	fmt.Println("hit:", hit)
	_, hit = c.Decide(now+30_000, key)
	fmt.Println("hit:", hit)
	// Output:
	// recorded: false
	// remembered for 30 s
	// hit: true
	// hit: false
}
