// Package metrics counts what the policies did, per policy, as plain numbers
// that JS reads by index (a //go:wasmexport taking the Counter, returning a
// float64). The order of the counters is part of the API: new counters are
// appended, none is ever renumbered or removed. Each is declared for the
// shim's metrics() in internal/abi (metrics.go), with what it counts there.
package metrics

import "strconv"

// Counter names one count.
type Counter int

const (
	Network        Counter = iota // requests sent to the network (counted by the JS glue, which sends them)
	ShortCircuited                // answered by the open circuit without the network
	Coalesced                     // callers that joined a request in flight instead of sending one
	NegativeHits                  // answered from the negative cache
	StaleServed                   // answered with a stale copy
	Probes                        // half-open probes sent
	Retries                       // retries sent after a short Retry-After (counted by the JS glue)
	CooledDown                    // answered by a 429 cooldown without the network
	EmptyReused                   // answered with a reused empty result (adaptive TTL)
	Evicted                       // entries dropped from a full table (tickets, negcache, stale, cooldown, emptyttl)
	Decisions                     // requests decided by Begin (the quiet path's plain GETs are not)
	Scouts                        // scouts of an open circuit sent (the trip rule's: a GET the open period had not seen)
	numCounters
)

// names are the JSON-friendly names, in Counter order.
var names = [numCounters]string{
	"network", "shortCircuited", "coalesced", "negativeHits", "staleServed",
	"probes", "retries", "cooledDown", "emptyReused", "evicted", "decisions", "scouts",
}

func (c Counter) String() string {
	if c >= 0 && c < numCounters {
		return names[c]
	}
	return "Counter(" + strconv.Itoa(int(c)) + ")"
}

// Counters returns every Counter, in their stable order.
func Counters() []Counter {
	cs := make([]Counter, numCounters)
	for i := range cs {
		cs[i] = Counter(i)
	}
	return cs
}

// Set is one tab's counts. The zero Set is ready to use. Not safe for
// concurrent use.
type Set struct{ n [numCounters]uint64 }

// Add adds one to c; an unknown Counter is ignored.
func (s *Set) Add(c Counter) { s.AddN(c, 1) }

// AddN adds n to c; an unknown Counter is ignored.
func (s *Set) AddN(c Counter, n uint64) {
	if c >= 0 && c < numCounters {
		s.n[c] += n
	}
}

// Get returns the count of c, or 0 for an unknown Counter (so JS can probe
// for counters a newer build added).
func (s *Set) Get(c Counter) uint64 {
	if c >= 0 && c < numCounters {
		return s.n[c]
	}
	return 0
}
