// Package abi declares the whole interface between the Go core (wasm/) and
// the JS glue (js/src/engine.ts), in one place: the exported functions and
// their arguments, the functions the glue gives the wasm (sessionStorage,
// see Imports), the request kinds, the result flags and codes, the slots
// of the out array, the frame formats written into the string buffer, and the
// counters of the shim's metrics() (metrics.go: who counts each, and what).
// layout.go declares each out layout and fixed frame as a struct, and
// package line each kind of line of the line frames (LineFrames);
// layout.gen.go (the Go side), js/src/abi.gen.ts and js/src/metrics.gen.ts
// (the shim's side) are generated from it (go generate ./internal/abi), and a
// test fails when a file is stale, so the two sides cannot drift.
//
// Conventions that hold for every export:
//   - Numbers only: f64 for times (Unix ms, passed in from Date.now()),
//     tickets, flights and copy ids; i32 for lengths, statuses and codes.
//   - A string argument is a frame: JS encodes it as UTF-8 into the buffer
//     (gc_buf, grown by gc_reserve, never cut) and passes its byte length.
//   - Multi-valued answers come back in out, an array of OutLen float64 at
//     gc_out, laid out as the export's out struct in layout.go says; a
//     message or text answer comes back in the buffer.
//   - No export blocks, waits or calls into JS per request.
//
//go:generate go test -run TestGeneratedTypeScript -update .
package abi

import (
	"github.com/gatewaycircuit/gatewaycircuit/internal/guard"
	"github.com/gatewaycircuit/gatewaycircuit/policy/stale"
)

// MaxFrame bounds a frame, in bytes. A request whose frame would be longer
// is not decided on a prefix: the glue passes it through untouched and
// counts it (metric "untouched").
const MaxFrame = 16 << 20

// MaxCopy is the largest body kept as a stale copy (the stale index's
// default MaxBytes): the glue stops copying a body there, so a long or
// endless answer is never buffered past it.
const MaxCopy = stale.DefaultMaxBytes

// Flags are or-ed into the results of gc_begin and gc_finish.
const (
	FlagRetry    = 1 << 8  // gc_finish: send again after FinishOut.WaitMs
	FlagWantBody = 1 << 9  // gc_finish: keep a copy of the body (gc_store)
	FlagServe    = 1 << 10 // gc_finish: answer with the stale copy in out
	FlagChanged  = 1 << 11 // any call: the circuit's state changed; read it and notify
	FlagKeyed    = 1 << 12 // gc_begin, Send: a mutation that carries an Idempotency-Key (gc_idem_begin gives it)
	KindMask     = 0xff    // gc_begin: the guard.Kind in the low byte
)

// Codes are the negative results of the exports that can refuse.
const (
	CodeNotStarted = -1 // the guard is not configured
	CodeBadArm     = -2 // gc_arm: the message says which argument
	CodeKeyReused  = -3 // gc_idem_begin: the key was used with another body (the draft's 422)
	CodeLedgerFull = -4 // gc_idem_begin: too many actions still pending
	CodeBodyTooBig = -5 // gc_idem_begin: the body is too large to fingerprint
	CodeBodyDeep   = -6 // gc_idem_begin: the body is nested too deeply to fingerprint
	CodeBadKey     = -7 // gc_idem_begin: the caller's own Idempotency-Key is malformed
	CodeIdemOff    = -8 // gc_idem_begin: idempotency keys are off, or the mutation is out of scope
)

// ImportModule is the wasm import module of the storage imports (Imports).
const ImportModule = "gatewaycircuit"

// Negative results of the storage imports.
const (
	StorageMissing     = -1 // storage_get: no such key
	StorageUnavailable = -2 // no sessionStorage, or it threw
	StorageQuota       = -3 // storage_set: the value does not fit
)

// Quiet bits, published at gc_quiet after every call.
const (
	QuietIdle     = 1 // no policy has anything to say about a plain GET
	QuietCoalesce = 2 // identical plain GETs in flight share one request
)

// QuietStatusLen is the length of the quiet-status table at
// gc_quiet_statuses: one byte per status from StatusOpaque to 599 (index
// status - StatusOpaque), 1 when that answer to a plain GET sent on the
// quiet path changes nothing (guard.Uneventful), so the shim need not report
// it. Which statuses trip is configured (data-trip-statuses): Go fills the
// table in gc_configure.
const QuietStatusLen = 600 - StatusOpaque

// QuietStatuses is the quiet-status table of a guard's Uneventful.
func QuietStatuses(uneventful func(status int) bool) (t [QuietStatusLen]uint8) {
	for i := range t {
		if uneventful(i + StatusOpaque) {
			t[i] = 1
		}
	}
	return t
}

// Status values that are not HTTP statuses, passed to gc_finish/gc_observe.
const (
	StatusNoAnswer = guard.StatusNoAnswer // fetch rejected: no answer at all
	StatusOpaque   = guard.StatusOpaque   // an opaque (no-cors) or opaqueredirect answer: an answer, status unknown
)
