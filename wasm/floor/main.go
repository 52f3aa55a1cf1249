//go:build js && wasm

// Command floor is the yardstick for size and start-up: the smallest Go
// js/wasm program that registers one function, built with the module's flags.
package main

import "syscall/js"

func main() {
	js.Global().Set("floorReady", js.FuncOf(func(js.Value, []js.Value) any { return nil }))
	select {}
}
