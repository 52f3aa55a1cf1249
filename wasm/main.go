//go:build js && wasm

// Command wasm is the gatewaycircuit module: it wires the policy core
// (internal/guard) to the JS glue in js/src/engine.ts through the numeric
// exports that internal/abi declares (js/src/abi.gen.ts is generated from
// it). Strings arrive as frames in buf, in Go memory, which grows on demand
// and never cuts; multi-valued answers go back through out. Nothing here
// holds a JS object per request.
package main

import (
	"errors"
	"unsafe"

	idem "github.com/gatewaycircuit/gatewaycircuit/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/internal/abi"
	"github.com/gatewaycircuit/gatewaycircuit/internal/circuit"
	"github.com/gatewaycircuit/gatewaycircuit/internal/guard"
	"github.com/gatewaycircuit/gatewaycircuit/internal/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/internal/jsbridge"
	"github.com/gatewaycircuit/gatewaycircuit/internal/metrics"
	"github.com/gatewaycircuit/gatewaycircuit/policy/line"
)

var (
	buf = make([]byte, 8192) // frames from JS (gc_buf, gc_reserve), messages back
	out [abi.OutLen]float64  // multi-valued answers (gc_out), written with abi.Put*
	// quiet mirrors the guard's quiet bits after every call, for the shim to
	// read without a call (gc_quiet).
	quiet      int32
	storage    *jsbridge.SessionStorage
	g          *guard.Guard
	messageLen int32    // length of the last refusal's message in buf
	dropped    []uint32 // stale copies JS has yet to release (gc_dropped)
	body       []byte   // a body written by JS (gc_body)
)

// quietStatuses says which answers on the quiet path change nothing
// (guard.Uneventful), for the shim to read without a call (gc_quiet_statuses).
var quietStatuses [abi.QuietStatusLen]uint8

func main() {
	storage = jsbridge.NewSessionStorage()
	select {} // stay alive for the exports
}

//go:wasmexport gc_buf
func gcBuf() int32 { return addr(buf) }

//go:wasmexport gc_reserve
func gcReserve(n int32) int32 {
	if n > abi.MaxFrame {
		return 0
	}
	if int(n) > len(buf) {
		buf = make([]byte, max(int(n), 2*len(buf)))
	}
	return addr(buf)
}

//go:wasmexport gc_out
func gcOut() int32 { return int32(uintptr(unsafe.Pointer(&out[0]))) }

//go:wasmexport gc_quiet
func gcQuiet() int32 { return int32(uintptr(unsafe.Pointer(&quiet))) }

//go:wasmexport gc_quiet_statuses
func gcQuietStatuses() int32 { return int32(uintptr(unsafe.Pointer(&quietStatuses[0]))) }

// settle publishes the guard's quiet bits; every export that can change
// them defers it.
func settle() {
	quiet = 0
	if g != nil && g.Quiet() {
		quiet = abi.QuietIdle
		if g.Coalescing() {
			quiet |= abi.QuietCoalesce
		}
	}
}

//go:wasmexport gc_configure
func gcConfigure(nowMs float64, n int32) int32 {
	defer settle()
	p, options, warnings := guard.ParseAttributes(text(n))
	var err error
	if g, err = guard.New(p, storage); err != nil {
		g = nil
		return message(abi.CodeNotStarted, err)
	}
	g.Load(int64(nowMs))
	quietStatuses = abi.QuietStatuses(g.Uneventful)
	frame := []byte(options)
	for _, w := range warnings {
		frame = line.AppendWarning(frame, line.Warning{Text: w})
	}
	gcReserve(int32(len(frame)))
	return int32(copy(buf, frame))
}

//go:wasmexport gc_adopt
func gcAdopt(sentMs float64, n int32) float64 {
	if g == nil {
		return 0
	}
	defer settle()
	r := abi.ReadRequest(view(n))
	return float64(g.Adopt(int64(sentMs), r.Method, r.URL, r.Headers))
}

//go:wasmexport gc_begin
func gcBegin(nowMs float64, n int32) int32 {
	defer settle()
	if g == nil {
		return int32(guard.Pass)
	}
	r := abi.ReadRequest(view(n))
	v := g.Version()
	a := g.Begin(int64(nowMs), r.Method, r.URL, r.Headers)
	abi.PutBeginOut(&out, &abi.BeginOut{
		Ticket: float64(a.Ticket), Flight: float64(a.Flight), Probe: float64(a.Probe), ProbeTimeoutMs: float64(a.WaitMs),
		UntilMs: float64(a.UntilMs), Status: float64(a.Status),
		CopyID: float64(a.Copy.ID), CopyAgeMs: float64(a.Copy.AgeMs), CopyStoredAtMs: float64(a.Copy.StoredAtMs),
	})
	res := int32(a.Kind) | changed(v)
	if a.Keyed {
		res |= abi.FlagKeyed
	}
	return res
}

//go:wasmexport gc_finish
func gcFinish(nowMs float64, ticket float64, status int32, n int32) int32 {
	defer settle()
	if g == nil {
		return 0
	}
	a := abi.ReadAnswer(view(n))
	v := g.Version()
	o := g.Finish(int64(nowMs), uint32(ticket), int(status), a.RetryAfter, a.CacheControl, a.FinalURL)
	abi.PutFinishOut(&out, &abi.FinishOut{
		WaitMs: float64(o.WaitMs), CopyID: float64(o.Copy.ID), CopyAgeMs: float64(o.Copy.AgeMs), CopyStoredAtMs: float64(o.Copy.StoredAtMs),
	})
	r := changed(v)
	if o.Retry {
		r |= abi.FlagRetry
	}
	if o.WantBody {
		r |= abi.FlagWantBody
	}
	if o.Serve {
		r |= abi.FlagServe
	}
	return r
}

//go:wasmexport gc_observe
func gcObserve(nowMs, sentMs, answeredMs float64, status int32, n int32) int32 {
	defer settle()
	if g == nil {
		return 0
	}
	o := abi.ReadObserve(view(n))
	v := g.Version()
	span := circuit.Span{SentMs: int64(sentMs), AnsweredMs: int64(answeredMs)}
	g.Observe(int64(nowMs), span, o.Method, o.URL, "", int(status), o.RetryAfter, o.FinalURL)
	return changed(v)
}

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
	return addr(body)
}

//go:wasmexport gc_idem_begin
func gcIdemBegin(nowMs float64, n int32, r0, r1, r2, r3 int32) int32 {
	if g == nil || g.Ledger() == nil {
		return abi.CodeIdemOff
	}
	m := abi.ReadMutation(text(n))
	if !g.Keyed(m.Method, m.URL) {
		return abi.CodeIdemOff // not a mutation, or another origin not opted in: sent without a key
	}
	op := guard.Operation(m.Method, m.URL, m.Headers)
	var random [16]byte
	for i, r := range [4]int32{r0, r1, r2, r3} {
		random[4*i], random[4*i+1], random[4*i+2], random[4*i+3] = byte(r), byte(r>>8), byte(r>>16), byte(r>>24)
	}
	given := guard.GivenKey(m.Headers)
	sub, err := g.Ledger().Submit(int64(nowMs), op, given, body, random)
	// Matched on the sentinels the typed errors unwrap to: errors.As would
	// link reflectlite into the wasm (12 KB brotli).
	switch {
	case err == nil:
	case errors.Is(err, idempotency.ErrKeyReused):
		return message(abi.CodeKeyReused, err)
	case errors.Is(err, idempotency.ErrLedgerFull):
		return message(abi.CodeLedgerFull, err)
	case errors.Is(err, idem.ErrTooLarge):
		return message(abi.CodeBodyTooBig, err)
	case errors.Is(err, idem.ErrTooDeep):
		return message(abi.CodeBodyDeep, err)
	case errors.Is(err, idem.ErrInvalidKey):
		return message(abi.CodeBadKey, err)
	default:
		return message(abi.CodeIdemOff, err) // anything else: send it without a key, never refuse
	}
	if given != "" {
		sub.Header = "" // the caller's own header is sent as it is
	}
	frame := abi.WriteKey(&abi.Key{Operation: op, Key: sub.Key, Header: sub.Header})
	gcReserve(int32(len(frame)))
	abi.PutIdemBeginOut(&out, &abi.IdemBeginOut{KeyLen: float64(copy(buf, frame))})
	return int32(sub.Decision)
}

//go:wasmexport gc_idem_finish
func gcIdemFinish(nowMs float64, n int32, status int32) int32 {
	if g == nil || g.Ledger() == nil {
		return 0
	}
	a := abi.ReadAction(text(n))
	return int32(g.Ledger().Finish(int64(nowMs), a.Operation, a.Key, int(status)))
}

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

//go:wasmexport gc_dropped
func gcDropped() float64 {
	if len(dropped) == 0 {
		return 0
	}
	id := dropped[len(dropped)-1]
	dropped = dropped[:len(dropped)-1]
	return float64(id)
}

//go:wasmexport gc_abort
func gcAbort(ticket float64) int32 {
	defer settle()
	return boolInt(g != nil && g.Abort(uint32(ticket)))
}

//go:wasmexport gc_arm
func gcArm(nowMs float64, status int32, ttlMs float64) int32 {
	defer settle()
	if g == nil {
		return abi.CodeNotStarted
	}
	v := g.Version()
	if _, err := g.Arm(int64(nowMs), int(status), int64(ttlMs)); err != nil {
		return message(abi.CodeBadArm, err)
	}
	return changed(v)
}

//go:wasmexport gc_clear
func gcClear() int32 {
	defer settle()
	if g == nil {
		return 0
	}
	v := g.Version()
	g.Clear()
	return changed(v)
}

//go:wasmexport gc_read
func gcRead(nowMs float64) int32 {
	defer settle()
	if g == nil {
		return 0
	}
	v := g.Version()
	g.Breaker().Read(int64(nowMs))
	return changed(v)
}

//go:wasmexport gc_succeeded
func gcSucceeded(sentMs, answeredMs float64) {
	defer settle()
	if g != nil {
		g.Succeeded(circuit.Span{SentMs: int64(sentMs), AnsweredMs: int64(answeredMs)})
	}
}

//go:wasmexport gc_forget
func gcForget(nowMs float64) {
	defer settle()
	if g == nil {
		return
	}
	g.Forget(int64(nowMs))
	dropped = append(dropped, g.Dropped()...)
}

//go:wasmexport gc_reload
func gcReload(nowMs float64) int32 {
	defer settle()
	if g == nil {
		return 0
	}
	v := g.Version()
	g.Reload(int64(nowMs))
	return changed(v)
}

// gc_pauses writes the 429 pauses into buf, in the format they are stored
// in (cooldown.Encode, which the shim's pre-ready gate reads too), and
// returns its length.
//
//go:wasmexport gc_pauses
func gcPauses() int32 {
	if g == nil {
		return 0
	}
	frame := g.PausesText()
	gcReserve(int32(len(frame)))
	return int32(copy(buf, frame))
}

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

//go:wasmexport gc_metric
func gcMetric(i int32) float64 {
	if g == nil {
		return 0
	}
	m := g.Metrics()
	return float64(m.Get(metrics.Counter(i)))
}

//go:wasmexport gc_message_len
func gcMessageLen() int32 { return messageLen }

func addr(b []byte) int32 { return int32(uintptr(unsafe.Pointer(&b[0]))) }

// text copies buf[:n], for strings kept beyond the call.
func text(n int32) string { return string(buf[:clamp(n)]) }

// view is buf[:n] without a copy, for the per-request calls: it is valid
// only during the call, and internal/guard keeps none of it (it copies what
// it keeps). That saves an allocation per call on the path every request takes.
func view(n int32) string {
	if n <= 0 {
		return ""
	}
	return unsafe.String(&buf[0], clamp(n))
}

func clamp(n int32) int { return max(0, min(int(n), len(buf))) }

func changed(before uint64) int32 {
	if g.Version() != before {
		return abi.FlagChanged
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
	s := err.Error()
	gcReserve(int32(len(s)))
	messageLen = int32(copy(buf, s))
	return code
}
