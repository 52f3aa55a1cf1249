package emptyttl_test

import (
	"fmt"

	"github.com/gatewaycircuit/gatewaycircuit/policy/emptyttl"
	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
)

func Example() {
	tr, _ := emptyttl.New(emptyttl.Policy{Mode: mode.On})
	now := int64(1_700_000_000_000)
	key := "GET https://app.example/api/notifications"
	for _, body := range []string{"[]", "[]", " [ ] ", "[]", "[]", `[{"id":1}]`} {
		ttl := tr.Observe(now, key, emptyttl.Empty([]byte(body)))
		fmt.Printf("%-12q reuse for %d s\n", body, ttl/1000)
		now += ttl + 1
	}
	// Output:
	// "[]"         reuse for 0 s
	// "[]"         reuse for 0 s
	// " [ ] "      reuse for 60 s
	// "[]"         reuse for 60 s
	// "[]"         reuse for 120 s
	// "[{\"id\":1}]" reuse for 0 s
}
