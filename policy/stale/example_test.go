package stale_test

import (
	"fmt"

	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
	"github.com/gatewaycircuit/gatewaycircuit/policy/stale"
)

func Example() {
	x, _ := stale.New(stale.Policy{Mode: mode.On})
	now := int64(1_700_000_000_000)
	key := "GET https://app.example/api/orders"

	// A good response: JS keeps the body under the id Go gives.
	id := x.Store(now, key, 2048, "max-age=0")
	fmt.Println("keep body as", id)

	// 10 minutes later the gateway is down: serve the copy, marked as stale.
	now += 600_000
	if c, ok := x.Lookup(now, key); ok {
		fmt.Println("serve", c.ID, "Age:", c.AgeMs/1000, "collected at", c.StoredAtMs)
	}

	// A newer response replaces it; JS releases the old body.
	x.Store(now, key, 1024, "")
	fmt.Println("release", x.Dropped())
	// Output:
	// keep body as 1
	// serve 1 Age: 600 collected at 1700000000000
	// release [1]
}

func ExampleParseCacheControl() {
	fmt.Printf("%+v\n", stale.ParseCacheControl(`max-age=60, stale-if-error=86400`))
	fmt.Printf("%+v\n", stale.ParseCacheControl(`private="a, b", No-Store`))
	// Output:
	// {MaxAge:60 StaleIfError:86400 NoStore:false}
	// {MaxAge:-1 StaleIfError:-1 NoStore:true}
}
