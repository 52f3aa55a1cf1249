//go:build js && wasm

package main

import (
	"errors"
	"fmt"

	"github.com/gatewaycircuit/gatewaycircuit/edge/origin"
	"github.com/hack-pad/safejs"
)

// The JS classes the glue uses, looked up once.
var (
	objectClass     = safejs.MustGetGlobal("Object")
	arrayClass      = safejs.MustGetGlobal("Array")
	uint8ArrayClass = safejs.MustGetGlobal("Uint8Array")
	promiseClass    = safejs.MustGetGlobal("Promise")
)

// await waits for a JS promise, following net/http's roundtrip_js.go: both
// callbacks are released whichever settles, and the channel is buffered so
// a callback never blocks the JS thread.
func await(p safejs.Value) (safejs.Value, error) {
	type settled struct {
		v   safejs.Value
		err error
	}
	ch := make(chan settled, 1)
	then, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		ch <- settled{v: arg(args, 0)}
		return nil
	})
	if err != nil {
		return safejs.Undefined(), err
	}
	defer then.Release()
	catch, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		ch <- settled{err: jsError(arg(args, 0))}
		return nil
	})
	if err != nil {
		return safejs.Undefined(), err
	}
	defer catch.Release()
	if _, err := p.Call("then", then.Value(), catch.Value()); err != nil {
		return safejs.Undefined(), err
	}
	s := <-ch
	return s.v, s.err
}

// promise returns a JS Promise that run settles from a new goroutine (a
// js.FuncOf callback must never block).
func promise(run func() (any, error)) (safejs.Value, error) {
	executor, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		resolve, reject := arg(args, 0), arg(args, 1)
		go func() {
			v, err := recovered(run)
			if err != nil {
				_, _ = reject.Invoke(err.Error())
				return
			}
			_, _ = resolve.Invoke(v)
		}()
		return nil
	})
	if err != nil {
		return safejs.Undefined(), err
	}
	defer executor.Release() // the executor runs inside New
	return promiseClass.New(executor.Value())
}

func arg(args []safejs.Value, i int) safejs.Value {
	if i < len(args) {
		return args[i]
	}
	return safejs.Undefined()
}

// jsError turns a rejection reason into an error, without letting a
// throwing toString escape.
func jsError(v safejs.Value) error {
	if s, err := v.Call("toString"); err == nil {
		if msg, err := s.String(); err == nil {
			return errors.New(msg)
		}
	}
	return errors.New("javascript error")
}

func str(v safejs.Value) string {
	if v.Type() != safejs.TypeString {
		return ""
	}
	s, _ := v.String()
	return s
}

// bytesToJS copies b into a new Uint8Array.
func bytesToJS(b []byte) (safejs.Value, error) {
	a, err := uint8ArrayClass.New(len(b))
	if err != nil {
		return a, err
	}
	_, err = safejs.CopyBytesToJS(a, b)
	return a, err
}

// bytesFromJS copies a Uint8Array into Go; anything else is nil.
func bytesFromJS(v safejs.Value) []byte {
	if ok, _ := v.InstanceOf(uint8ArrayClass); !ok {
		return nil
	}
	n, _ := v.Length()
	b := make([]byte, n)
	_, _ = safejs.CopyBytesToGo(b, v)
	return b
}

// responseToJS is the plain object the JS side turns into a Response:
// {status, headers: [[name, value]...], body: Uint8Array}.
func responseToJS(r origin.Response) (any, error) {
	o, err := objectClass.New()
	if err != nil {
		return nil, err
	}
	h := make([]any, len(r.Header))
	for i, f := range r.Header {
		h[i] = []any{f[0], f[1]}
	}
	body, err := bytesToJS(r.Body)
	if err != nil {
		return nil, err
	}
	if err := o.Set("status", r.Status); err != nil {
		return nil, err
	}
	if err := o.Set("headers", h); err != nil {
		return nil, err
	}
	if r.Held != 0 {
		if err := o.Set("held", r.Held); err != nil {
			return nil, err
		}
	}
	return o, o.Set("body", body)
}

// headerFromJS reads an array of [name, value] pairs.
func headerFromJS(v safejs.Value) origin.Header {
	n, err := v.Length()
	if err != nil {
		return nil
	}
	h := make(origin.Header, 0, n)
	for i := range n {
		pair, err := v.Index(i)
		if err != nil {
			continue
		}
		name, _ := pair.Index(0)
		value, _ := pair.Index(1)
		h = append(h, [2]string{str(name), str(value)})
	}
	return h
}

// headerToJS writes h as an array of [name, value] pairs.
func headerToJS(h origin.Header) []any {
	out := make([]any, len(h))
	for i, f := range h {
		out[i] = []any{f[0], f[1]}
	}
	return out
}

// recovered runs fn and turns a panic into an error: a panic that escaped
// would end the Go instance, and with it every request of the isolate.
func recovered(fn func() (any, error)) (v any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("edge: panic: %v", p)
		}
	}()
	return fn()
}
