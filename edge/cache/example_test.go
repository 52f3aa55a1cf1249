//go:build !(js && wasm)

package cache_test

import (
	"context"
	"fmt"

	"github.com/gatewaycircuit/gatewaycircuit/edge/cache"
	"github.com/gatewaycircuit/gatewaycircuit/edge/origin"
	"github.com/gatewaycircuit/gatewaycircuit/edge/sqldb"
)

// flaky answers once, then fails.
type flaky struct{ calls int }

func (f *flaky) Fetch(context.Context, origin.Request) (origin.Response, error) {
	f.calls++
	if f.calls > 1 {
		return origin.Response{Status: 503}, nil
	}
	return origin.Response{Status: 200, Body: []byte(`{"items":[1]}`)}, nil
}

func Example() {
	db, _ := sqldb.OpenMemory()
	defer db.Close()
	now := int64(1_700_000_000_000)
	svc, _ := cache.Open(cache.Policy{}, cache.Options{Name: "api", Upstream: "https://api.example",
		DB: db, Client: &flaky{}, Now: func() int64 { return now }})
	show := func() {
		r := svc.Get(context.Background(), "/items", "")
		if ra := r.Header.Get("retry-after"); ra != "" {
			fmt.Println(r.Status, r.Header.Get(cache.HeaderCache), "retry-after", ra)
			return
		}
		fmt.Println(r.Status, r.Header.Get(cache.HeaderCache), "age", r.Header.Get("age"))
	}
	show() // fetched
	now += 10_000
	show() // fresh
	now += 30_000
	show() // past its TTL, the upstream fails: the copy stands in, marked (backoff 30 s)
	now += 90_000
	show() // past max-stale (120 s); asked again, the upstream fails: 503 for the next window
	// Output:
	// 200 miss age 0
	// 200 hit age 10
	// 200 stale age 40
	// 503 unavailable retry-after 60
}
