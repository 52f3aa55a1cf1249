package coalesce_test

import (
	"fmt"

	"github.com/gatewaycircuit/gatewaycircuit/internal/coalesce"
)

func Example() {
	t, _ := coalesce.New(coalesce.Policy{})
	p := t.Policy()
	headers := coalesce.ParseHeaders("accept: application/json\nauthorization: Bearer abc\ntraceparent: 00-4bf9-01")
	key, _ := p.Key("GET", "https://app.example/api/me", headers)
	fmt.Println(key)

	id, leader := t.Join(key) // the first caller sends the request
	_, joined := t.Join(key)  // a second one waits for it
	fmt.Println(id, leader, !joined)
	t.Complete(id)          // the answer came: the glue clones it for each waiter
	_, again := t.Join(key) // the next caller starts a fresh request
	fmt.Println("after complete, leader:", again)
	// Output:
	// GET https://app.example/api/me
	// accept: application/json
	// authorization: #833ff71639a34770
	// 1 true true
	// after complete, leader: true
}
