//go:build !(js && wasm)

package abi

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gatewaycircuit/gatewaycircuit/internal/metrics"
)

// Counted says who counts a counter of metrics().
type Counted int

const (
	ByGo   Counted = iota // Go (package metrics), read with gc_metric
	ByJS                  // the shim, where it carries a request out
	ByBoth                // both: metrics() gives the sum
)

// Counter is one counter of the shim's metrics(), a field of its public
// Metrics type (js/src/metrics.gen.ts).
type Counter struct {
	Name string // the field; for Go's count, the metrics.Counter of that name
	By   Counted
	Doc  string // the field's doc comment
}

// MetricsDoc is the Metrics type's doc comment, line by line.
var MetricsDoc = []string{
	"Counters since the page loaded: `calls = answeredLocally + passedThrough +",
	"network - retries`, but for the calls still waiting or aborted while they",
	"waited; the per-policy counters say why (docs/api.md, \"Metrics\"). Before the",
	"wasm runs (and in fallback) Go's counters stay 0.",
}

// Counters are the fields of Metrics, in its order. Go's counters that the
// shim counts instead (network, retries: the shim sends those requests) are
// ByJS; every counter of package metrics is here (a test checks).
var Counters = []Counter{
	{"calls", ByJS, "Calls of `gatewayCircuit.fetch`, whatever became of them."},
	{"network", ByJS, "Requests sent to the network (probes and retries included), the quiet path too."},
	{"answeredLocally", ByJS, "Calls answered without a request of their own: the circuit, a pause, a shared request, the negative cache, a copy, an idempotency refusal."},
	{"passedThrough", ByJS, "Calls handed to the browser's fetch untouched: out of scope, an input fetch rejects by itself, an aborted signal, or too large to decide (`untouched`). Not guarded, so not in `network`."},
	{"shortCircuited", ByBoth, "Answered by the armed circuit."},
	{"coalesced", ByBoth, "Callers that shared a request in flight instead of sending one."},
	{"negativeHits", ByGo, "Answered by the negative cache."},
	{"staleServed", ByGo, "Answered with a stale copy."},
	{"probes", ByGo, "Half-open probes sent."},
	{"retries", ByJS, "Retries after a 429 with a short Retry-After."},
	{"cooledDown", ByBoth, "Answered by a 429 cooldown."},
	{"emptyReused", ByGo, "Answered with the copy of a GET that keeps answering empty (data-empty-ttl)."},
	{"evicted", ByGo, "Entries dropped from a full table (requests in flight, negative cache, cooldowns, empty-result TTLs)."},
	{"idempotencyRefused", ByJS, "Mutations refused locally: a key reused with another body (a 422) or a malformed key of the caller's own (thrown)."},
	{"untouched", ByJS, "In scope, but passed through untouched because too large to decide on (a frame over 16 MiB); part of `passedThrough`."},
	{"scouts", ByGo, "Scouts of an open circuit sent: an open period the page's trip rule armed has one, the first GET whose key it has not seen (a second only after the first was aborted or answered opaque)."},
	{"decisions", ByGo, "Calls Go decided one by one (the quiet path's plain GETs are not): a half-open waiter is decided once when it arrives and once when the probe ends, so this stays small while a probe hangs."},
}

// metricIndex is gc_metric's index of Go's counter name.
func metricIndex(name string) (int, bool) {
	for _, c := range metrics.Counters() {
		if c.String() == name {
			return int(c), true
		}
	}
	return 0, false
}

// MetricsTypeScript renders js/src/metrics.gen.ts: the public Metrics type,
// and what the shim needs to count its part and merge Go's.
func MetricsTypeScript() (string, error) {
	var b strings.Builder
	w := func(s ...string) {
		for _, x := range s {
			b.WriteString(x)
		}
		b.WriteByte('\n')
	}
	var js, zero, goes []string
	for _, c := range Counters {
		q := strconv.Quote(c.Name)
		zero = append(zero, c.Name+": 0")
		if c.By != ByGo {
			js = append(js, q)
		}
		if c.By != ByJS {
			i, ok := metricIndex(c.Name)
			if !ok {
				return "", fmt.Errorf("metrics: %s is counted by Go, but package metrics has no such counter", c.Name)
			}
			goes = append(goes, "["+q+", "+strconv.Itoa(i)+"]")
		}
	}
	w("// Code generated from internal/abi (go generate ./internal/abi). DO NOT EDIT.")
	w("// metrics()'s counters as internal/abi/metrics.go declares them: what each")
	w("// counts, and who counts it (Go, the shim, or both: the sum).")
	w()
	w("/**")
	for _, l := range MetricsDoc {
		w(" * ", l)
	}
	w(" */")
	w("export interface Metrics {")
	for _, c := range Counters {
		w("  /** ", c.Doc, " */")
		w("  ", c.Name, ": number;")
	}
	w("}")
	w()
	w("/** The counters the shim keeps, counted where it carries a request out (Go keeps the others). */")
	w("export const JS_COUNTED = [", strings.Join(js, ", "), "] as const;")
	w("export type JsCounts = Record<(typeof JS_COUNTED)[number], number>;")
	w()
	w("/** The counters Go keeps, with their index for gc_metric; a counter in JS_COUNTED too is the sum. */")
	w("export const GO_COUNTED: readonly (readonly [keyof Metrics, number])[] = [", strings.Join(goes, ", "), "];")
	w()
	w("/** The metrics of a phase that has counted nothing. */")
	w("export function noMetrics(): Metrics {")
	w("  return { ", strings.Join(zero, ", "), " };")
	w("}")
	return b.String(), nil
}
