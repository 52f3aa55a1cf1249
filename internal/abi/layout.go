package abi

// The layouts that cross the boundary, each declared once as a struct. The
// generator (render.go) reads this file and writes both sides from it:
// layout.gen.go (the Go writers and readers wasm/main.go uses) and
// js/src/abi.gen.ts (the TypeScript ones the shim uses). A slot's index and
// a field's place in a frame come from the field's order here, so no two
// fields can share one; a test fails when either generated file is stale.
//
// Two kinds of struct:
//   - Out layouts (every field float64): an export's multi-valued answer in
//     out, one slot per field, in order. Go writes them with PutX(&out, x);
//     the shim's typed calls (Calls in tables.go) read them into their
//     answers. A slot tagged frame:"X" is
//     the length of an X frame Go wrote into the buffer: the shim's answer
//     has that frame's fields in its place.
//   - Frames (every field string): "\n"-separated fields in the string
//     buffer. The last field is the rest of the frame, so it alone may hold
//     "\n" (request headers). Go reads them with ReadX(frame) and writes them
//     with WriteX(x); the shim writes them with writeX(x) and reads them with
//     readX(text). Fields before the last never hold "\n": fetch rejects
//     such methods, URLs and header values before the shim sees them.
//
// The line frames (Attributes, Options, Pauses) are lists of lines: each kind
// of line is a struct of package line, generated the same way (its Go
// parser and writer in line/line.gen.go, the shim's in abi.gen.ts),
// and LineFrames in tables.go says which lines each frame holds.

// BeginOut is out after gc_begin; which slots mean something depends on the
// Kind in gc_begin's result.
type BeginOut struct {
	Ticket         float64 // Send: names the request in gc_finish and gc_abort
	Flight         float64 // Send, Join: the coalesced flight (0 = none)
	Probe          float64 // Send: this request is the half-open probe with this id (0 = not a probe); Wait: the probe to wait for
	ProbeTimeoutMs float64 // Wait: how long to wait for the probe at most
	UntilMs        float64 // Open, Cooling, Negative, Stale: when the blocking state ends
	Status         float64 // Open, Negative, Stale: the status that armed the circuit
	CopyID         float64 // Stale, Cached: the copy to answer with
	CopyAgeMs      float64 // Stale, Cached
	CopyStoredAtMs float64 // Stale, Cached
}

// FinishOut is out after gc_finish.
type FinishOut struct {
	WaitMs         float64 // FlagRetry: how long to wait before sending again
	CopyID         float64 // FlagServe: the copy to answer with
	CopyAgeMs      float64 // FlagServe
	CopyStoredAtMs float64 // FlagServe
}

// IdemBeginOut is out after a gc_idem_begin that did not refuse.
type IdemBeginOut struct {
	KeyLen float64 `frame:"Key"` // length of the Key frame in the buffer
}

// Request is the frame of gc_begin and gc_adopt.
type Request struct {
	Method string
	URL    string
	// One "name: value\n" line per request header, then one ":option:
	// value\n" line per request option that differs from fetch's default
	// (mode, credentials, cache, redirect, referrer, referrerPolicy,
	// integrity, priority, keepalive).
	Headers string
}

// Answer is the frame of gc_finish: what the network answered.
type Answer struct {
	RetryAfter   string
	CacheControl string
	FinalURL     string // the response's url when it was redirected, else empty
}

// Observe is the frame of gc_observe: the answer to a request sent before
// the wasm ran.
type Observe struct {
	Method     string
	URL        string
	RetryAfter string
	FinalURL   string
}

// Mutation is the frame of gc_idem_begin.
type Mutation struct {
	Method string
	URL    string
	// As in Request; Go reads the caller's own Idempotency-Key there
	// (guard.GivenKey).
	Headers string
}

// Key is the frame gc_idem_begin writes into the buffer (its length in
// IdemBeginOut.KeyLen).
type Key struct {
	Operation string // the action's operation (idempotency.Operation)
	Key       string // the key, as the ledger knows it
	Header    string // the Idempotency-Key header to set; empty when the caller's own is sent as it is
}

// Action is the frame of gc_idem_finish: a Key without its header.
type Action struct {
	Operation string
	Key       string
}
