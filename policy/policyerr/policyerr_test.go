package policyerr_test

import (
	"errors"
	"fmt"

	"github.com/gatewaycircuit/gatewaycircuit/policy/policyerr"
)

var errInvalid = errors.New("demo: invalid policy")

func ExampleNew() {
	err := policyerr.New(errInvalid, "maxTtlMs", "must be > 0")
	fmt.Println(err)
	fmt.Println(errors.Is(err, errInvalid), policyerr.Field(err, errInvalid))
	fmt.Printf("%q\n", policyerr.Field(errors.New("other"), errInvalid))
	// Output:
	// demo: invalid policy: maxTtlMs: must be > 0
	// true maxTtlMs
	// ""
}
