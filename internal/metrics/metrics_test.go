package metrics_test

import (
	"fmt"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/metrics"
)

func Example() {
	var m metrics.Set
	m.Add(metrics.Network)
	m.AddN(metrics.Coalesced, 49)
	m.Add(metrics.ShortCircuited)
	for _, c := range metrics.Counters() {
		if n := m.Get(c); n > 0 {
			fmt.Println(int(c), c, n)
		}
	}
	// Output:
	// 0 network 1
	// 1 shortCircuited 1
	// 2 coalesced 49
}

// TestOrderIsStable pins the index of every counter: JS reads them by number.
func TestOrderIsStable(t *testing.T) {
	want := "[network shortCircuited coalesced negativeHits staleServed probes retries cooledDown emptyReused evicted decisions scouts]"
	if got := fmt.Sprint(metrics.Counters()); got != want {
		t.Fatalf("counters = %s\nwant a prefix-compatible %s", got, want)
	}
}

func TestUnknownCountersAreIgnored(t *testing.T) {
	var m metrics.Set
	m.Add(-1)
	m.Add(metrics.Counter(len(metrics.Counters())))
	if m.Get(-1) != 0 || m.Get(99) != 0 || metrics.Counter(99).String() != "Counter(99)" {
		t.Fatal("an unknown counter counted")
	}
}
