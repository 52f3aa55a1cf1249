//go:build js && wasm

// Command wasm is the gatewaycircuit module: it wires the circuit core to the
// JS glue in js/src/engine.ts. Per request, JS calls the numeric exports
// below; strings (URLs, config) are written by JS into buf, in Go memory.
// Nothing here holds a JS object per request.
package main

import (
	"syscall/js"
	"unsafe"

	"github.com/gatewaycircuit/gatewaycircuit/internal/circuit"
	"github.com/gatewaycircuit/gatewaycircuit/internal/jsbridge"
)

// The flags returned by the decision exports; js/src/engine.ts mirrors them.
const (
	flagPass    = 0 // out of scope
	flagAllow   = 1 // in scope, closed: send, then observe
	flagBlock   = 2 // in scope, armed: synthetic 503
	flagChanged = 4 // the state changed during the call: read it and notify
)

// Return codes of gc_configure and gc_arm.
const (
	codeOK         = 0
	codeBadConfig  = -1 // message in buf
	codeBadArm     = -2 // message in buf
	codeNotStarted = -3
)

var (
	buf     [8192]byte // JS writes strings here (pointer: gc_buf) and reads messages back
	storage *jsbridge.SessionStorage
	breaker *circuit.Breaker
	// messageLen is the length of the last error message written to buf.
	messageLen int32
)

func main() {
	storage = jsbridge.NewSessionStorage(js.Global())
	select {} // stay alive for the exports
}

//go:wasmexport gc_buf
func gcBuf() int32 { return int32(uintptr(unsafe.Pointer(&buf[0]))) }

//go:wasmexport gc_buf_cap
func gcBufCap() int32 { return int32(len(buf)) }

// gc_configure reads the policy (circuit.ParseConfig format) from buf[:n],
// restores the stored circuit at nowMs and returns flagChanged, with
// flagBlock when it is armed, or codeBadConfig with the message in buf.
//
//go:wasmexport gc_configure
func gcConfigure(nowMs float64, n int32) int32 {
	p, err := circuit.ParseConfig(string(buf[:clamp(n)]))
	if err != nil {
		return message(codeBadConfig, err)
	}
	breaker, _ = circuit.New(p, storage) // p is validated
	s := breaker.Load(int64(nowMs))
	if s.Armed(int64(nowMs)) {
		return flagChanged | flagBlock
	}
	return flagChanged
}

//go:wasmexport gc_decide
func gcDecide(nowMs float64, n int32) int32 {
	if breaker == nil {
		return flagPass
	}
	v := breaker.Version()
	d := breaker.Decide(int64(nowMs), unsafe.String(&buf[0], clamp(n)))
	return int32(d) | changed(v)
}

//go:wasmexport gc_observe
func gcObserve(nowMs float64, status int32) int32 {
	if breaker == nil {
		return 0
	}
	v := breaker.Version()
	breaker.Observe(int64(nowMs), int(status))
	return changed(v)
}

//go:wasmexport gc_arm
func gcArm(nowMs float64, status int32, ttlMs float64) int32 {
	if breaker == nil {
		return codeNotStarted
	}
	v := breaker.Version()
	if _, err := breaker.Arm(int64(nowMs), int(status), int64(ttlMs)); err != nil {
		return message(codeBadArm, err)
	}
	return changed(v)
}

//go:wasmexport gc_clear
func gcClear() int32 {
	if breaker == nil {
		return 0
	}
	v := breaker.Version()
	breaker.Clear()
	return changed(v)
}

// gc_read expires the circuit if its time is up; flagBlock means armed.
//
//go:wasmexport gc_read
func gcRead(nowMs float64) int32 {
	if breaker == nil {
		return 0
	}
	v := breaker.Version()
	_, armed := breaker.Read(int64(nowMs))
	r := changed(v)
	if armed {
		r |= flagBlock
	}
	return r
}

// gc_until and gc_status read the state after a call reported flagChanged.
//
//go:wasmexport gc_until
func gcUntil() float64 {
	if breaker == nil {
		return 0
	}
	return float64(breaker.State().Until)
}

//go:wasmexport gc_status
func gcStatus() int32 {
	if breaker == nil {
		return 0
	}
	return int32(breaker.State().HTTPStatus)
}

func changed(before uint32) int32 {
	if breaker.Version() != before {
		return flagChanged
	}
	return 0
}

func clamp(n int32) int {
	if n < 0 {
		return 0
	}
	if int(n) > len(buf) {
		return len(buf)
	}
	return int(n)
}

// message writes err into buf for gc_message_len and returns code.
func message(code int32, err error) int32 {
	messageLen = int32(copy(buf[:], err.Error()))
	return code
}

// gc_message_len is the length in buf of the message of the last failed call.
//
//go:wasmexport gc_message_len
func gcMessageLen() int32 { return messageLen }
