package ledgercore_test

import (
	"fmt"

	"github.com/gatewaycircuit/gatewaycircuit/ledgercore"
)

// An adapter reads the record of the request's ID, asks Decide, and carries
// the decision out with its own storage and transport.
func ExamplePolicy_Decide() {
	p := ledgercore.Policy{}.WithDefaults()
	now := int64(1_000_000)
	fp, _ := ledgercore.Fingerprint([]byte(`{"item":"tea","qty":2}`), p.MaxBodyBytes)
	same, _ := ledgercore.Fingerprint([]byte(`{ "qty": 2, "item": "tea" }`), p.MaxBodyBytes)
	done := &ledgercore.Record{Fingerprint: fp, State: ledgercore.StateDone, CreatedAt: now - 5_000, UpdatedAt: now - 4_000}
	cutOff := &ledgercore.Record{Fingerprint: fp, State: ledgercore.StatePending, CreatedAt: now - 60_000, UpdatedAt: now - 60_000}

	fmt.Println(p.Decide(nil, fp, now, 10_000))
	fmt.Println(p.Decide(done, same, now, 10_000))
	fmt.Println(p.Decide(done, "j:another body", now, 10_000))
	fmt.Println(p.Decide(cutOff, fp, now, 10_000))
	// Output:
	// run
	// replay
	// mismatch
	// inDoubt
}
