//go:build !(js && wasm)

package ledger_test

import "runtime"

func runtimeGosched() { runtime.Gosched() }
