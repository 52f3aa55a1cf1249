//go:build js && wasm

// Command wasm is the gatewaycircuit module: it wires the policy core
// (internal/guard) to the JS glue in js/src/engine.ts. Per request, JS calls
// the numeric exports below: strings (method, URL, headers, config) are
// written by JS into buf, in Go memory, and multi-valued answers come back
// through out. Nothing here holds a JS object per request.
package main

import (
	"errors"
	"strings"
	"syscall/js"
	"unsafe"

	"github.com/gatewaycircuit/gatewaycircuit/internal/guard"
	"github.com/gatewaycircuit/gatewaycircuit/internal/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/internal/jsbridge"
	"github.com/gatewaycircuit/gatewaycircuit/internal/metrics"
)

// Flags in the results of the exports; js/src/engine.ts mirrors them.
const (
	flagRetry    = 1  // gc_finish: send again after out[0] ms
	flagWantBody = 2  // gc_finish: keep a copy of the body (gc_store)
	flagServe    = 4  // gc_finish: answer with the stale copy in out[4:7]
	flagChanged  = 16 // the circuit's state changed: read it and notify
)

// Return codes of gc_configure, gc_arm and gc_idem_begin (messages in buf).
const (
	codeBadConfig  = -1
	codeBadArm     = -2
	codeNotStarted = -3
	codeKeyReused  = -4 // the key was used with another body (the draft's 422)
	codeLedgerFull = -5
	codeBadBody    = -6 // too large or too deep to fingerprint
	codeBadKey     = -7
	codeIdemOff    = -8
)

var (
	buf [8192]byte // JS writes strings here (gc_buf) and reads messages back
	// out carries multi-valued answers to JS (gc_out): for gc_begin
	// [ticket, flight, until, status, copyID, copyAgeMs, copyStoredAtMs, probe],
	// for gc_finish [waitMs, -, -, -, copyID, copyAgeMs, copyStoredAtMs].
	out [8]float64
	// quiet mirrors guard.Quiet after every call, for the shim to read without
	// a call (gc_quiet): while it is 1, plain GETs need not ask Go.
	quiet      int32
	storage    *jsbridge.SessionStorage
	g          *guard.Guard
	messageLen int32    // length of the last error message written to buf
	dropped    []uint32 // stale copies JS has yet to release (gc_dropped)
	body       []byte   // a mutation's body, written by JS (gc_body)
)

func main() {
	storage = jsbridge.NewSessionStorage(js.Global())
	select {} // stay alive for the exports
}

//go:wasmexport gc_buf
func gcBuf() int32 { return int32(uintptr(unsafe.Pointer(&buf[0]))) }

//go:wasmexport gc_buf_cap
func gcBufCap() int32 { return int32(len(buf)) }

//go:wasmexport gc_out
func gcOut() int32 { return int32(uintptr(unsafe.Pointer(&out[0]))) }

//go:wasmexport gc_quiet
func gcQuiet() int32 { return int32(uintptr(unsafe.Pointer(&quiet))) }

// gc_adopt gives a ticket (for gc_finish) to a request the shim sent on its
// own while quiet: buf[:n] is "METHOD\nURL\nheaders".
//
//go:wasmexport gc_adopt
func gcAdopt(n int32) float64 {
	if g == nil {
		return 0
	}
	method, rest, _ := strings.Cut(view(n), "\n")
	url, headers, _ := strings.Cut(rest, "\n")
	defer settle()
	return float64(g.Adopt(method, url, headers))
}

// settle publishes the guard's quiet state; every export that can change
// it defers it.
func settle() {
	quiet = 0
	if g != nil && g.Quiet() {
		quiet = 1
	}
}

// gc_configure reads the configuration (guard.ParseConfig) from buf[:n],
// restores the stored circuit at nowMs and returns 0 (the shim then reads
// the state), or codeBadConfig with the message in buf.
//
//go:wasmexport gc_configure
func gcConfigure(nowMs float64, n int32) int32 {
	defer settle()
	p, err := guard.ParseConfig(text(n))
	if err == nil {
		g, err = guard.New(p, storage)
	}
	if err != nil {
		g = nil
		return message(codeBadConfig, err)
	}
	g.Load(int64(nowMs))
	return 0
}

// gc_begin decides for the request written to buf[:n] as
// "METHOD\nURL\nheader: value\n…"; it returns the guard.Kind (out holds the
// rest), with flagChanged when the circuit's state changed.
//
//go:wasmexport gc_begin
func gcBegin(nowMs float64, n int32) int32 {
	defer settle()
	if g == nil {
		return int32(guard.Pass)
	}
	method, rest, _ := strings.Cut(view(n), "\n")
	url, headers, _ := strings.Cut(rest, "\n")
	v := g.Breaker().Version()
	a := g.Begin(int64(nowMs), method, url, headers)
	out = [8]float64{float64(a.Ticket), float64(a.Flight), float64(a.UntilMs), float64(a.Status),
		float64(a.Copy.ID), float64(a.Copy.AgeMs), float64(a.Copy.StoredAtMs), float64(a.Probe)}
	return int32(a.Kind) | changed(v)
}

// gc_finish takes the answer of ticket: its status (0 = fetch failed) and,
// in buf[:n], "Retry-After\nCache-Control".
//
//go:wasmexport gc_finish
func gcFinish(nowMs float64, ticket float64, status int32, n int32) int32 {
	defer settle()
	if g == nil {
		return 0
	}
	retryAfter, cacheControl, _ := strings.Cut(view(n), "\n")
	v := g.Breaker().Version()
	o := g.Finish(int64(nowMs), uint32(ticket), int(status), retryAfter, cacheControl)
	out = [8]float64{float64(o.WaitMs), 0, 0, 0, float64(o.Copy.ID), float64(o.Copy.AgeMs), float64(o.Copy.StoredAtMs), 0}
	r := changed(v)
	if o.Retry {
		r |= flagRetry
	}
	if o.WantBody {
		r |= flagWantBody
	}
	if o.Serve {
		r |= flagServe
	}
	return r
}

// gc_observe takes the answer of a request sent before the wasm was ready:
// buf[:n] is "METHOD\nURL\nRetry-After". Returns flagChanged when the
// circuit's state changed.
//
//go:wasmexport gc_observe
func gcObserve(nowMs float64, status int32, n int32) int32 {
	defer settle()
	if g == nil {
		return 0
	}
	method, rest, _ := strings.Cut(view(n), "\n")
	url, retryAfter, _ := strings.Cut(rest, "\n")
	v := g.Breaker().Version()
	g.Observe(int64(nowMs), method, url, "", int(status), retryAfter)
	return changed(v)
}

// gc_body returns where JS writes a body of n bytes (valid until the next call).
//
//go:wasmexport gc_body
func gcBody(n int32) int32 {
	if n < 0 {
		n = 0
	}
	if cap(body) < int(n) {
		body = make([]byte, n)
	}
	body = body[:n]
	if n == 0 {
		return 0
	}
	return int32(uintptr(unsafe.Pointer(&body[0])))
}

// gc_idem_begin registers a mutation before it is sent: buf[:n] is
// "OPERATION\nGIVEN-KEY" (empty: derive the action's key), the body is in
// gc_body, r0..r3 are 16 random bytes for a new key. It returns the
// idempotency.Decision (1 start, 2 retry, 3 join) and writes "key\nheader" to
// buf (length in out[0]), or a negative code with the message in buf.
//
//go:wasmexport gc_idem_begin
func gcIdemBegin(nowMs float64, n int32, r0, r1, r2, r3 int32) int32 {
	if g == nil || g.Ledger() == nil {
		return codeIdemOff
	}
	op, given, _ := strings.Cut(text(n), "\n")
	var random [16]byte
	for i, r := range [4]int32{r0, r1, r2, r3} {
		random[4*i], random[4*i+1], random[4*i+2], random[4*i+3] = byte(r), byte(r>>8), byte(r>>16), byte(r>>24)
	}
	sub, err := g.Ledger().Submit(int64(nowMs), op, given, body, random)
	switch {
	case errors.Is(err, idempotency.ErrKeyReused):
		return message(codeKeyReused, err)
	case errors.Is(err, idempotency.ErrLedgerFull):
		return message(codeLedgerFull, err)
	case errors.Is(err, idempotency.ErrTooLarge), errors.Is(err, idempotency.ErrTooDeep):
		return message(codeBadBody, err)
	case err != nil:
		return message(codeBadKey, err)
	}
	out[0] = float64(copy(buf[:], sub.Key+"\n"+sub.Header))
	return int32(sub.Decision)
}

// gc_idem_finish records the answer of a mutation: buf[:n] is
// "OPERATION\nKEY", status 0 when it got none. Returns the entry's state.
//
//go:wasmexport gc_idem_finish
func gcIdemFinish(nowMs float64, n int32, status int32) int32 {
	if g == nil || g.Ledger() == nil {
		return 0
	}
	op, key, _ := strings.Cut(text(n), "\n")
	return int32(g.Ledger().Finish(int64(nowMs), op, key, int(status)))
}

// gc_store keeps a body of the given size as the ticket's copy and returns
// the copy's id (0: not kept). A short body is also written whole to gc_body
// (small bytes; -1 when not), for the empty-result rule. Then call gc_dropped
// until it is 0.
//
//go:wasmexport gc_store
func gcStore(nowMs float64, ticket float64, bytes float64, small int32) float64 {
	defer settle()
	if g == nil {
		return 0
	}
	var whole []byte
	if small >= 0 && int(small) <= len(body) {
		whole = body[:small]
	}
	id := g.Store(int64(nowMs), uint32(ticket), int64(bytes), whole)
	dropped = append(dropped, g.Dropped()...)
	return float64(id)
}

// gc_dropped returns the next stale copy whose body JS must release, or 0.
//
//go:wasmexport gc_dropped
func gcDropped() float64 {
	if len(dropped) == 0 {
		return 0
	}
	id := dropped[len(dropped)-1]
	dropped = dropped[:len(dropped)-1]
	return float64(id)
}

// gc_abort: the caller of ticket aborted; 1 = abort the network request.
//
//go:wasmexport gc_abort
func gcAbort(ticket float64) int32 {
	defer settle()
	return boolInt(g != nil && g.Abort(uint32(ticket)))
}

// gc_leave: a caller who joined flight aborted; 1 = abort the network request.
//
//go:wasmexport gc_leave
func gcLeave(flight float64) int32 {
	defer settle()
	return boolInt(g != nil && g.Leave(uint32(flight)))
}

//go:wasmexport gc_arm
func gcArm(nowMs float64, status int32, ttlMs float64) int32 {
	defer settle()
	if g == nil {
		return codeNotStarted
	}
	v := g.Breaker().Version()
	if _, err := g.Arm(int64(nowMs), int(status), int64(ttlMs)); err != nil {
		return message(codeBadArm, err)
	}
	return changed(v)
}

//go:wasmexport gc_clear
func gcClear() int32 {
	defer settle()
	if g == nil {
		return 0
	}
	v := g.Breaker().Version()
	g.Clear()
	return changed(v)
}

// gc_read expires the circuit if its time is up (flagChanged says so).
//
//go:wasmexport gc_read
func gcRead(nowMs float64) int32 {
	defer settle()
	if g == nil {
		return 0
	}
	v := g.Breaker().Version()
	g.Breaker().Read(int64(nowMs))
	return changed(v)
}

// gc_until and gc_status read the state after a call reported flagChanged.
//
//go:wasmexport gc_until
func gcUntil() float64 {
	if g == nil {
		return 0
	}
	return float64(g.Breaker().State().Until)
}

//go:wasmexport gc_status
func gcStatus() int32 {
	if g == nil {
		return 0
	}
	return int32(g.Breaker().State().HTTPStatus)
}

// gc_metric reads counter i (metrics.Counter order).
//
//go:wasmexport gc_metric
func gcMetric(i int32) float64 {
	if g == nil {
		return 0
	}
	return float64(g.Metrics().Get(metrics.Counter(i)))
}

// gc_message_len is the length in buf of the message of the last failed call.
//
//go:wasmexport gc_message_len
func gcMessageLen() int32 { return messageLen }

// text copies buf[:n], for strings kept beyond the call.
func text(n int32) string { return string(buf[:clamp(n)]) }

// view is buf[:n] without a copy, for the per-request calls: it is valid
// only during the call, and internal/guard keeps none of it (it copies
// what it keeps: keys are built anew, services are the policy's scope
// entries). That saves an allocation per call on the path every request takes.
func view(n int32) string {
	if n <= 0 {
		return ""
	}
	return unsafe.String(&buf[0], clamp(n))
}

func clamp(n int32) int { return max(0, min(int(n), len(buf))) }

func changed(before uint32) int32 {
	if g.Breaker().Version() != before {
		return flagChanged
	}
	return 0
}

func boolInt(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// message writes err into buf for gc_message_len and returns code.
func message(code int32, err error) int32 {
	messageLen = int32(copy(buf[:], err.Error()))
	return code
}
