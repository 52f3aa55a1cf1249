//go:build js && wasm

package jsbridge

import "syscall/js"

// JSError is an exception thrown by JS during a call from Go.
type JSError struct{ Message string }

func (e *JSError) Error() string { return e.Message }

// try runs f, which makes one syscall/js call, and turns the panic syscall/js
// raises for a JS exception into an error. Only Call, Invoke and New are
// caught by wasm_exec.js; a property getter that throws is not, so reach
// properties that may throw through Reflect.get with Call.
//
// This replaces github.com/hack-pad/safejs, which does the same for every
// method but imports fmt: measured with make bench, dropping it took the
// wasm from 613 187 to 484 971 bytes brotli (docs/performance.md).
func try(f func() js.Value) (v js.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			if je, ok := r.(js.Error); ok {
				err = &JSError{Message: je.Error()}
				return
			}
			panic(r) // not a JS exception: a bug of ours, not to be hidden
		}
	}()
	return f(), nil
}
