//go:build !(js && wasm)

package guard

import (
	"strconv"
	"strings"

	"github.com/gatewaycircuit/gatewaycircuit/internal/circuit"
	"github.com/gatewaycircuit/gatewaycircuit/internal/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/policy/cooldown"
)

// kindConsts names each kind's constant in policy.gen.ts.
var kindConsts = [len(kinds)]string{
	millis:           "KIND_MILLIS",
	count:            "KIND_COUNT",
	statuses:         "KIND_STATUSES",
	onOff:            "KIND_ON_OFF",
	onOffAlways:      "KIND_ON_OFF_ALWAYS",
	onOffCrossOrigin: "KIND_ON_OFF_CROSS_ORIGIN",
}

// PolicyTypeScript renders js/src/policy.gen.ts: the part of the policy the
// shim needs before the wasm runs, as data. The tag's stand-in and the
// pre-ready gate read the data-* attributes with settings and kinds (the
// defaults, ranges and caps of ParseAttributes), and the stored circuit and
// pauses with the limits circuit.Restore and cooldown.Restore apply. The
// first answers of a page, before Go runs, arm the stored circuit by the
// smallest part of the trip rule: a trip status, for the TTL, capped.
func PolicyTypeScript() string {
	var b strings.Builder
	w := func(s ...string) {
		for _, x := range s {
			b.WriteString(x)
		}
		b.WriteByte('\n')
	}
	q := strconv.Quote
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	w("// Code generated from internal/guard (go generate ./internal/guard). DO NOT EDIT.")
	w("// The policy the shim applies before the wasm runs, as Go publishes it: see")
	w("// internal/guard/config.go (the attributes), internal/circuit (the stored")
	w("// circuit) and policy/cooldown (the stored 429 pauses).")
	w()
	w("/** How a value of a kind is checked: a whole number (each item of a comma-separated list) from min to max, or one of words. */")
	w("export interface Kind {")
	w("  readonly min: number;")
	w("  readonly max: number;")
	w("  readonly list: boolean;")
	w("  readonly words: readonly string[];")
	w("}")
	w()
	// One constant per kind, which a setting names: a bundle carries only the kinds of the settings it reads.
	for i, k := range kinds {
		words := make([]string, len(k.Words))
		for j, x := range k.Words {
			words[j] = q(x)
		}
		w("export const ", kindConsts[i], ": Kind = { min: ", n(k.Min), ", max: ", n(k.Max), ", list: ", strconv.FormatBool(k.List), ", words: [", strings.Join(words, ", "), "] };")
	}
	w()
	w("/** Other spellings of a switch's words. */")
	w("export const ALIASES: Readonly<Record<string, string>> = {")
	for _, a := range aliases {
		w("  ", a[0], ": ", q(a[1]), ",")
	}
	w("};")
	w()
	w("/** A data-* attribute (Go names it in warnings): its dataset name, default and kind; capBy names the setting that caps it (an empty default stands for that one). */")
	w("export interface Setting {")
	w("  readonly name: string;")
	w("  readonly def: string;")
	w("  readonly kind: Kind;")
	w("  readonly capBy: string;")
	w("}")
	w()
	var names []string
	for _, s := range settings {
		c := constName(s.name)
		names = append(names, c)
		w("export const ", c, ": Setting = { name: ", q(s.name), ", def: ", q(s.def), ", kind: ", kindConsts[s.kind], ", capBy: ", q(s.capBy), " };")
	}
	w()
	w("/** A setting's name: the data-* attribute as the DOMStringMap names it. */")
	var quoted []string
	for _, s := range settings {
		quoted = append(quoted, q(s.name))
	}
	w("export type SettingName = ", strings.Join(quoted, " | "), ";")
	w()
	w("/** The options in force, one per setting: a switch is on unless \"off\" (\"always\" and \"cross-origin\" are on too), a list is its numbers. */")
	w("export interface Options {")
	for _, s := range settings {
		def := s.def
		if def == "" {
			def = attrOf(s.capBy)
		}
		typ := "number"
		switch r := kinds[s.kind]; {
		case r.Words != nil:
			typ = "boolean"
		case r.List:
			typ = "number[]"
		}
		w("  /** ", optionDocs[s.name], " ", s.attr, ", default ", def, ". */")
		w("  ", s.name, ": ", typ, ";")
	}
	w("}")
	w()
	w("/** Every setting, in Go's order. */")
	w("export const SETTINGS: readonly Setting[] = [", strings.Join(names, ", "), "];")
	w()
	w("/** The stored circuit (circuit.Restore): its key, the longest payload read, the strikes counted at most. */")
	w("export const STORAGE_KEY = ", q(circuit.StorageKey), ";")
	w("export const MAX_PAYLOAD_LEN = ", n(circuit.MaxPayloadLen), ";")
	w("export const MAX_STRIKES = ", n(circuit.MaxStrikes), ";")
	w("/** Present while the stored circuit's open period may still send its scout (circuit.ScoutKey): until Go runs, in-scope requests wait for it. */")
	w("export const SCOUT_KEY = ", q(circuit.ScoutKey), ";")
	w()
	w("/** The stored 429 pauses (cooldown.Restore): a Pauses frame (abi.gen.ts) under COOLDOWN_KEY; a line with more strikes is skipped; a pause is clamped to MAX_PAUSE_MS from now. */")
	w("export const COOLDOWN_KEY = ", q(cooldown.StorageKey), ";")
	w("export const MAX_STORED_STRIKES = ", n(cooldown.MaxStoredStrikes), ";")
	w("export const MAX_PAUSE_MS = ", n(cooldown.DefaultMaxPauseMs), ";")
	w()
	w("/** The idempotency ledger (idempotency.Ledger): forget() before Go runs removes it, so Go never reads a previous user's pending keys. */")
	w("export const LEDGER_KEY = ", q(idempotency.StorageKey), ";")
	methods := make([]string, len(idempotency.Methods))
	for i, m := range idempotency.Methods {
		methods[i] = q(m)
	}
	w("/** The methods whose requests carry an Idempotency-Key (idempotency.Methods): until Go runs, the gate holds them for their key. */")
	w("export const KEYED_METHODS: readonly string[] = [", strings.Join(methods, ", "), "];")
	w()
	w("/** A deadline the app set (TIMEOUT_MS, a call's timeout): a request past it fails as TIMEOUT_STATUS (internal/guard DefaultTimeoutMs). */")
	w("export const TIMEOUT_STATUS = ", n(TimeoutStatus), ";")
	return b.String()
}

// optionDocs says what each setting does, for the shim's typed options (kept
// out of the wasm; a test checks that every setting has one).
var optionDocs = map[string]string{
	"ttlMs":           "How long a trip arms the circuit.",
	"maxTtlMs":        "The cap on every TTL, stored deadlines included.",
	"tripStatuses":    "The HTTP statuses that arm the circuit.",
	"tripWindowMs":    "The window in which tripMinFailures trip statuses arm.",
	"tripMinFailures": "Trip statuses within the window, with no success between, that arm.",
	"tripBurstMs":     "Requests sent this close together are one burst, in flight together for the trip rule.",
	"halfOpenMs":      "How long after the TTL the outage is remembered (one probe decides).",
	"stale":           "Serve the last good copy of a GET when the gateway fails. Opt-in.",
	"staleMaxMs":      "How old a stale copy may be (a server's stale-if-error overrides).",
	"coalesce":        "Share identical in-flight GETs.",
	"negativeCache":   "Remember failed GETs for a while (\"always\": after every failure, not only after an outage).",
	"cooldown":        "Pause a service after a 429.",
	"probe":           "One half-open probe when the circuit's time is up.",
	"idempotency":     "Idempotency keys on in-scope " + strings.Join(idempotency.Methods[:], "/") + " (\"cross-origin\": to other origins in scope too).",
	"emptyTtl":        "Cache GETs that keep answering empty for longer (60 s after 3, 120 s after 5). Opt-in.",
	"timeoutMs":       "A deadline for every in-scope request, until its answer's headers (a call's own `timeout` overrides it); 0: none.",
}

// constName is "ttlMs" → "TTL_MS".
func constName(name string) string {
	var b strings.Builder
	for i, r := range name {
		if r >= 'A' && r <= 'Z' && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}
