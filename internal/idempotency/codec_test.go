package idempotency

import (
	"reflect"
	"testing"
)

// FuzzDecode: whatever sessionStorage holds, decode keeps only valid
// entries, and what it keeps survives encode and decode unchanged.
func FuzzDecode(f *testing.F) {
	f.Add("f\t1700000000000\t1700000000000\tj:1\tk1\tPOST /api/orders\n")
	f.Add("p\t1\t2\tb:x\ta \"b\"\tPUT /주문\nd\t1\t1\tj:1\tk1\tPOST /a\nd\t1\t1\tj:2\tk1\tPOST /a\n")
	f.Add("garbage\n\n\t\t\t\t\t\n")
	f.Fuzz(func(t *testing.T, raw string) {
		entries, _ := decode(raw)
		for _, e := range entries {
			if checkEntry(e.Operation, e.Key, e.Fingerprint) != nil || e.State < Pending || e.State > Failed || e.UpdatedAt < e.CreatedAt {
				t.Fatalf("decode kept an invalid entry %+v", e)
			}
		}
		if len(entries) == 0 {
			return
		}
		again, dirty := decode(encode(entries))
		if dirty || !reflect.DeepEqual(again, entries) {
			t.Fatalf("round trip changed %+v into %+v (dirty %v)", entries, again, dirty)
		}
	})
}
