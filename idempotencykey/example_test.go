package idempotencykey_test

import (
	"errors"
	"fmt"

	"github.com/gatewaycircuit/gatewaycircuit/idempotencykey"
)

func Example() {
	// What a server does with a mutation that carries a key.
	key, err := idempotencykey.ParseHeader(`"8e03978e-40d5-43e8-bc93-6894a57f9324"`)
	fmt.Println(key, err)

	// The same order, serialised twice by different clients: one canonical body.
	a, _, _ := idempotencykey.Canonical([]byte(`{"qty": 2, "item": "tea"}`), idempotencykey.Limits{})
	b, isJSON, _ := idempotencykey.Canonical([]byte(`{"item":"tea","qty":2.0}`), idempotencykey.Limits{})
	fmt.Println(string(a) == string(b), isJSON, string(b))

	// A bare token is not a key: the server answers 400.
	_, err = idempotencykey.ParseHeader("8e03978e")
	fmt.Println(errors.Is(err, idempotencykey.ErrInvalidKey))

	// A body over the limit cannot be compared.
	_, _, err = idempotencykey.Canonical(make([]byte, 10), idempotencykey.Limits{MaxBytes: 5})
	fmt.Println(errors.Is(err, idempotencykey.ErrTooLarge))
	// Output:
	// 8e03978e-40d5-43e8-bc93-6894a57f9324 <nil>
	// true true {"item":"tea","qty":2}
	// true
	// true
}
