//go:build js && wasm && faultinject

// The test-only fault build (make build-faultwasm → build/faults/): the same
// module, plus two ways to make the Go program die while a page uses it.
// e2e/faults.test.mjs uses them while requests are in flight:
//
//	globalThis.__gcFault("exit")   os.Exit(3), from a js.FuncOf callback
//	globalThis.__gcFault("panic")  panic, from a js.FuncOf callback
//	exports.gc_fault_panic()       panic inside a //go:wasmexport call, as a
//	                               bug in gc_decide or gc_observe would
//
// It touches nothing in main.go, so it builds whatever main.go holds; it is
// never part of dist/.
package main

import (
	"os"
	"syscall/js"
)

func init() {
	// Never released: it lives as long as the program, which is the point.
	js.Global().Set("__gcFault", js.FuncOf(func(_ js.Value, args []js.Value) any {
		mode := ""
		if len(args) > 0 && args[0].Type() == js.TypeString {
			mode = args[0].String()
		}
		switch mode {
		case "exit":
			os.Exit(3)
		case "panic":
			panic("faultinject: panic in a callback")
		}
		return "unknown mode " + mode
	}))
}

//go:wasmexport gc_fault_panic
func gcFaultPanic() int32 { panic("faultinject: panic in an export") }
