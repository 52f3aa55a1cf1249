package idempotency_test

import (
	"errors"
	"fmt"

	"github.com/gatewaycircuit/gatewaycircuit/idempotency"
)

// What a server does with a mutation that carries a key.
func Example() {
	// Both forms clients send name the same key; a bare value with a
	// space is refused (the server answers 400).
	quoted, _ := idempotency.ParseKey(`"8e03978e-40d5-43e8-bc93-6894a57f9324"`)
	bare, _ := idempotency.ParseKey(`8e03978e-40d5-43e8-bc93-6894a57f9324`)
	_, err := idempotency.ParseKey(`order 7`)
	fmt.Println(quoted == bare, errors.Is(err, idempotency.ErrInvalidKey))

	// The same order, serialised twice by different clients: one body.
	a, _ := idempotency.Fingerprint([]byte(`{"qty": 2, "item": "tea"}`), idempotency.Limits{})
	b, _ := idempotency.Fingerprint([]byte(`{"item":"tea","qty":2.0}`), idempotency.Limits{})
	c, _ := idempotency.Fingerprint([]byte(`{"item":"tea","qty":3}`), idempotency.Limits{})
	fmt.Println(a == b, a == c)

	// A body over the limit cannot be compared: 413.
	_, err = idempotency.Fingerprint(make([]byte, 10), idempotency.Limits{MaxBytes: 5})
	fmt.Println(idempotency.FingerprintProblem(err).Status)
	// Output:
	// true true
	// true false
	// 413
}

func ExampleCanonical() {
	canon, isJSON, _ := idempotency.Canonical([]byte(`{ "qty": 2.50, "item": "tea", "tags": ["b", "a"], "n": 1e21 }`), idempotency.Limits{})
	fmt.Println(string(canon), isJSON)
	canon, isJSON, _ = idempotency.Canonical([]byte(`item=tea&qty=2`), idempotency.Limits{})
	fmt.Println(string(canon), isJSON)
	// Output:
	// {"item":"tea","n":1e+21,"qty":2.5,"tags":["b","a"]} true
	// item=tea&qty=2 false
}

func ExampleHeaderValue() {
	v, _ := idempotency.HeaderValue(idempotency.NewKey([16]byte{0x8e, 0x03, 0x97, 0x8e, 0x40, 0xd5, 0x43, 0xe8, 0xbc, 0x93, 0x68, 0x94, 0xa5, 0x7f, 0x93, 0x24}))
	fmt.Println(idempotency.Header+":", v)
	// Output:
	// Idempotency-Key: "8e03978e-40d5-43e8-bc93-6894a57f9324"
}
