package cooldown_test

import (
	"fmt"

	"github.com/gatewaycircuit/gatewaycircuit/policy/cooldown"
	"github.com/gatewaycircuit/gatewaycircuit/policy/retryafter"
)

func Example() {
	c, _ := cooldown.New(cooldown.Policy{})
	now := int64(1_700_000_000_000)
	svc := cooldown.Service("https://app.example/api/users?page=2", []string{"https://app.example/api/"})

	// 429 with "Retry-After: 2": wait 2 s and send once more.
	ra, _ := retryafter.Parse("2", now)
	o := c.Limited(now, svc, ra, false)
	fmt.Println(o.Action, o.WaitMs)

	// The retry is limited again, without a Retry-After: the service pauses,
	// for every URL under it, for a short time this module chose (5 s,
	// doubled for the second strike).
	now += 2000
	o = c.Limited(now, svc, cooldown.NoRetryAfter, true)
	until, paused := c.Decide(now, cooldown.Service("https://app.example/api/orders", []string{"https://app.example/api/"}))
	fmt.Println(o.Action, paused, (until-now)/1000, "s")
	for _, p := range c.Pauses(now) {
		fmt.Println(p.Service, p.Reason(), p.ServerAsked)
	}

	// The user presses "try again": the pause the module chose ends.
	c.ClearChosen()
	_, paused = c.Decide(now, svc)
	fmt.Println(paused)
	// Output:
	// retry 2000
	// pause true 10 s
	// https://app.example/api/ rateLimited false
	// false
}
