package idempotency_test

import (
	"fmt"

	"github.com/gatewaycircuit/gatewaycircuit/idempotency"
)

// An adapter reads the record of the request's ID, asks Decide, and carries
// the decision out with its own storage and transport.
func ExamplePolicy_Decide() {
	p := idempotency.Policy{}.WithDefaults()
	now := int64(1_000_000)
	limits := idempotency.Limits{MaxBytes: p.MaxBodyBytes}
	fp, _ := idempotency.Fingerprint([]byte(`{"item":"tea","qty":2}`), limits)
	same, _ := idempotency.Fingerprint([]byte(`{ "qty": 2, "item": "tea" }`), limits)
	done := &idempotency.Record{Fingerprint: fp, State: idempotency.StateDone, CreatedAt: now - 5_000, UpdatedAt: now - 4_000}
	running := &idempotency.Record{Fingerprint: fp, State: idempotency.StatePending, CreatedAt: now - 300, UpdatedAt: now - 100}
	cutOff := &idempotency.Record{Fingerprint: fp, State: idempotency.StatePending, CreatedAt: now - 60_000, UpdatedAt: now - 60_000}

	fmt.Println(p.Decide(nil, fp, now, 10_000))
	fmt.Println(p.Decide(done, same, now, 10_000))
	fmt.Println(p.Decide(done, "j:another body", now, 10_000))
	fmt.Println(p.Decide(running, same, now, 10_000))
	fmt.Println(p.Decide(cutOff, fp, now, 10_000))
	// Output:
	// run
	// replay
	// mismatch
	// inFlight
	// inDoubt
}
