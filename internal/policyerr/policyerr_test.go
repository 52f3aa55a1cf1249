package policyerr_test

import (
	"errors"
	"fmt"

	"github.com/gatewaycircuit/gatewaycircuit/internal/policyerr"
)

var errInvalid = errors.New("demo: invalid policy")

func ExampleNew() {
	err := policyerr.New(errInvalid, "maxTtlMs", "must be > 0")
	var pe *policyerr.Error
	fmt.Println(err)
	fmt.Println(errors.Is(err, errInvalid), errors.As(err, &pe) && pe.Field == "maxTtlMs")
	// Output:
	// demo: invalid policy: maxTtlMs: must be > 0
	// true true
}
