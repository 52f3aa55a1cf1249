package negcache_test

import (
	"fmt"

	"github.com/gatewaycircuit/gatewaycircuit/internal/negcache"
)

func Example() {
	c, _ := negcache.New(negcache.Policy{})
	now := int64(1_700_000_000_000)
	key := "GET https://app.example/api/orders"

	if negcache.Failure(503) {
		until := c.Failed(now, key, true) // a stale copy can be shown meanwhile
		fmt.Println("remembered for", (until-now)/1000, "s")
	}
	_, hit := c.Decide(now+10_000, key) // a re-render 10 s later
	fmt.Println("hit:", hit)
	_, hit = c.Decide(now+30_000, key)
	fmt.Println("hit:", hit)
	// Output:
	// remembered for 30 s
	// hit: true
	// hit: false
}
