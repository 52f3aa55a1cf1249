//go:generate go test -run TestPolicyTypeScript -update .

package guard

import (
	"strconv"
	"strings"

	"github.com/gatewaycircuit/gatewaycircuit/internal/circuit"
	"github.com/gatewaycircuit/gatewaycircuit/policy/line"
	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
	"github.com/gatewaycircuit/gatewaycircuit/policy/stale"
	"github.com/gatewaycircuit/gatewaycircuit/policy/text"
)

// The configuration pipeline: the script tag's data-* attributes reach Go
// raw, one "name=value" line each, named as the DOMStringMap names them
// (data-ttl-ms → ttlMs). ParseAttributes applies the defaults, validates,
// and returns the policy, the options in force (what gatewayCircuit.options
// shows) and one warning per rejected attribute. A bad value never stops the
// page: it is named, and its default is used.
//
// Every attribute, its default and its valid range:
//
//	data-scope            the page's origin   comma-separated path prefixes or origins; the shim
//	                                          resolves them against the page (one scope= line each)
//	data-ttl-ms           120000              > 0, ≤ data-max-ttl-ms: how long a trip arms the circuit
//	data-max-ttl-ms       600000              > 0: cap on every TTL, stored deadlines included
//	data-trip-statuses    502,503,504         HTTP statuses (100-599) that arm the circuit
//	data-trip-window-ms   3000                > 0: the window in which data-trip-min-failures trip
//	                                          statuses arm (the trip rule itself: package circuit)
//	data-trip-min-failures 1                  1-1000: trip statuses within the window, with no success between, that arm
//	data-trip-burst-ms    250                 > 0: requests sent this close together are one burst, in flight
//	                                          together for the trip rule (circuit.Policy.TripBurstMs)
//	data-half-open-ms     data-max-ttl-ms     > 0: how long after the TTL the outage is remembered
//	                                          (the next page load sends one probe, not every query)
//	data-stale            off                 serve the last good copy of a GET when the gateway fails
//	data-stale-max-ms     3600000             > 0: how old a stale copy may be
//	data-coalesce         on                  identical in-flight GETs share one request
//	data-negative-cache   on                  a failed GET is not asked again for a while — "on": only in
//	                                          the 30 s after an outage ended (a flaky API never looks
//	                                          worse than without the module), "always": every failure
//	data-cooldown         on                  a 429 pauses the service
//	data-probe            on                  one half-open probe when the circuit's time is up
//	data-idempotency      on                  idempotency keys on in-scope mutations to the page's own
//	                                          origin — "cross-origin": to other origins in scope too
//	                                          (Idempotency-Key is not CORS-safelisted: the API must
//	                                          allow it in a preflight); "off"
//	data-empty-ttl        off                 GETs that keep answering empty are cached longer
//	data-timeout-ms       none                > 0: a deadline for every in-scope request, until its
//	                                          answer's headers (see DefaultTimeoutMs); a call's own
//	                                          `timeout` option overrides it
//
// Switches take "on" or "off" ("true" and "false" too), in any case.
//
// This table, the kinds' rules below and the stored formats' limits are
// published to the shim as data (js/src/policy.gen.ts, PolicyTypeScript):
// the tag's stand-in and the pre-ready gate read attributes and storage by
// them before the wasm runs, so they cannot disagree with Go.
var settings = []setting{
	{"ttlMs", "data-ttl-ms", strconv.Itoa(circuit.DefaultTTLMs), millis, "maxTtlMs"},
	{"maxTtlMs", "data-max-ttl-ms", strconv.Itoa(circuit.DefaultMaxTTLMs), millis, ""},
	{"tripStatuses", "data-trip-statuses", "502,503,504", statuses, ""},
	{"tripWindowMs", "data-trip-window-ms", strconv.Itoa(circuit.DefaultTripWindowMs), millis, ""},
	{"tripMinFailures", "data-trip-min-failures", strconv.Itoa(circuit.DefaultTripMinFailures), count, ""},
	{"tripBurstMs", "data-trip-burst-ms", strconv.Itoa(circuit.DefaultTripBurstMs), millis, ""},
	{"halfOpenMs", "data-half-open-ms", "", millis, "maxTtlMs"},
	{"stale", "data-stale", "off", onOff, ""},
	{"staleMaxMs", "data-stale-max-ms", strconv.Itoa(stale.DefaultMaxStaleMs), millis, ""},
	{"coalesce", "data-coalesce", "on", onOff, ""},
	{"negativeCache", "data-negative-cache", "on", onOffAlways, ""},
	{"cooldown", "data-cooldown", "on", onOff, ""},
	{"probe", "data-probe", "on", onOff, ""},
	{"idempotency", "data-idempotency", "on", onOffCrossOrigin, ""},
	{"emptyTtl", "data-empty-ttl", "off", onOff, ""},
	{"timeoutMs", "data-timeout-ms", strconv.Itoa(DefaultTimeoutMs), millis, ""}, // 0: no deadline
}

// DefaultTimeoutMs is the deadline of an in-scope request unless the app
// sets one: none (0). Slow is not down: a request the server answers late is
// answered late, as with fetch, its upload completes and its stream flows. A
// gateway that hangs is noticed when it says so — its own 504 (nginx's
// proxy_read_timeout, AWS API Gateway's 29 s) — which arms the circuit like
// any trip status. An app that wants a deadline sets data-timeout-ms (or a
// call's `timeout`, as in ky): past it the caller's promise rejects with a
// TimeoutError, as fetch's does for AbortSignal.timeout, and the trip rule
// takes it as TimeoutStatus. The glue (js/src/deadline.ts) carries it out.
const DefaultTimeoutMs = 0

// TimeoutStatus is what a request past a deadline the app set counts as for
// the trip rule: the 504 a gateway gives a request it could not serve in time.
const TimeoutStatus = 504

type kind int

const (
	millis kind = iota
	count
	statuses
	onOff
	onOffAlways
	onOffCrossOrigin
)

// kindRule is how a value of a kind is checked: a whole number (each item of
// a comma-separated list, for List) from Min to Max, or one of Words.
type kindRule struct {
	Min, Max int64
	List     bool
	Words    []string
	Reason   string // why a value is refused (a list names the bad item instead)
}

var kinds = [...]kindRule{
	millis:           {Min: 1, Max: 1 << 53, Reason: "is not a positive whole number of milliseconds"},
	count:            {Min: 1, Max: 1000, Reason: "is not a whole number from 1 to 1000"},
	statuses:         {Min: 100, Max: 599, List: true},
	onOff:            {Words: words(mode.On, mode.Off), Reason: "is not on or off"},
	onOffAlways:      {Words: words(mode.On, mode.Off, mode.Always), Reason: "is not on, off or always"},
	onOffCrossOrigin: {Words: words(mode.On, mode.Off, mode.CrossOrigin), Reason: "is not on, off or cross-origin"},
}

func words(modes ...mode.Mode) []string {
	w := make([]string, len(modes))
	for i, m := range modes {
		w[i] = m.String()
	}
	return w
}

// aliases are the other spellings a switch takes.
var aliases = [][2]string{{"true", "on"}, {"false", "off"}}

// setting is one attribute. capBy names the setting whose value caps this
// one: a larger value is lowered to it (with a warning when it was given),
// and an empty default stands for it. (What each does, for the shim's typed
// options, is in policygen.go: optionDocs.)
type setting struct {
	name, attr, def string
	kind            kind
	capBy           string
}

// ParseAttributes reads the Attributes frame (see settings; line.Option
// lines). Lines for names it does not know (data-wasm, the app's own data-*)
// are ignored. The options are line.Option lines, every setting in the order
// above, then the scope: the Options frame, without its warnings.
func ParseAttributes(lines string) (p Policy, options string, warnings []string) {
	given := map[string]string{}
	var scope []string
	for _, l := range strings.Split(lines, "\n") {
		o, ok := line.ParseOption(l)
		if !ok {
			continue
		}
		if o.Name == "scope" {
			scope = append(scope, o.Value)
			continue
		}
		given[o.Name] = o.Value
	}
	values := map[string]string{}
	for _, s := range settings {
		v, ok := given[s.name]
		v = text.TrimSpace(v)
		if !ok || v == "" {
			values[s.name] = s.def
			continue
		}
		norm, reason := s.kind.check(v)
		if reason != "" {
			warnings = append(warnings, s.attr+": "+strconv.Quote(v)+" "+reason+"; using "+s.def)
			norm = s.def
		}
		values[s.name] = norm
	}
	for _, s := range settings {
		if s.capBy == "" {
			continue
		}
		v, limit := values[s.name], values[s.capBy]
		if _, set := given[s.name]; set && v != "" && ms(v) > ms(limit) {
			warnings = append(warnings, s.attr+": "+v+" exceeds "+attrOf(s.capBy)+" "+limit+"; using "+limit)
		}
		if v == "" || ms(v) > ms(limit) {
			values[s.name] = limit // a lower maximum lowers the default
		}
	}
	ttl, maxTTL, halfOpen := ms(values["ttlMs"]), ms(values["maxTtlMs"]), ms(values["halfOpenMs"])
	minFailures, _ := text.Int(values["tripMinFailures"])
	p.Circuit = circuit.Policy{
		TTLMs: ttl, MaxTTLMs: maxTTL, TripStatuses: statusList(values["tripStatuses"]), Scope: scope,
		TripWindowMs: ms(values["tripWindowMs"]), TripMinFailures: int(minFailures), HalfOpenMs: halfOpen,
		TripBurstMs: ms(values["tripBurstMs"]),
	}
	p.Stale.Mode = modeOf(values["stale"])
	p.Stale.MaxStaleMs = ms(values["staleMaxMs"])
	p.Coalesce.Mode = modeOf(values["coalesce"])
	p.Negative.Mode = modeOf(values["negativeCache"])
	p.Cooldown.Mode = modeOf(values["cooldown"])
	p.Probe.Mode = modeOf(values["probe"])
	p.Idempotency.Mode = modeOf(values["idempotency"])
	p.PageOrigin = given["pageOrigin"]
	p.Reloaded = given["navigation"] == "reload"
	p.Empty.Mode = modeOf(values["emptyTtl"])
	p.TimeoutMs = ms(values["timeoutMs"])

	var b []byte
	for _, s := range settings {
		b = line.AppendOption(b, line.Option{Name: s.name, Value: values[s.name]})
	}
	for _, s := range scope {
		b = line.AppendOption(b, line.Option{Name: "scope", Value: s})
	}
	return p, string(b), warnings
}

// check returns v in its normal form, or why it is rejected.
func (k kind) check(v string) (string, string) {
	r := kinds[k]
	if r.Words != nil {
		w := text.Lower(v)
		for _, a := range aliases {
			if w == a[0] {
				w = a[1]
			}
		}
		for _, word := range r.Words {
			if w == word {
				return w, ""
			}
		}
		return "", r.Reason
	}
	if !r.List {
		n, ok := text.Int(v)
		if !ok || n < r.Min || n > r.Max {
			return "", r.Reason
		}
		return strconv.FormatInt(n, 10), ""
	}
	var parts []string
	for _, part := range strings.Split(v, ",") {
		part = text.TrimSpace(part)
		if part == "" {
			continue
		}
		n, ok := text.Int(part)
		if !ok || n < r.Min || n > r.Max {
			return "", "lists " + strconv.Quote(part) + ", not an HTTP status (" + strconv.FormatInt(r.Min, 10) + "-" + strconv.FormatInt(r.Max, 10) + ")"
		}
		parts = append(parts, strconv.FormatInt(n, 10))
	}
	return strings.Join(parts, ","), ""
}

func attrOf(name string) string {
	for _, s := range settings {
		if s.name == name {
			return s.attr
		}
	}
	return name
}

// modeOf is a switch's normal word (a kind's Words are mode words) as a
// mode.
func modeOf(word string) mode.Mode {
	m, _ := mode.Parse(word)
	return m
}

func ms(v string) int64 {
	n, _ := text.Int(v)
	return n
}

func statusList(v string) []int {
	list := []int{}
	for _, part := range strings.Split(v, ",") {
		if n, ok := text.Int(part); ok {
			list = append(list, int(n))
		}
	}
	return list
}
