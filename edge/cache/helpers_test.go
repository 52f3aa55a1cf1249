//go:build !(js && wasm)

package cache_test

import (
	"runtime"

	"github.com/gatewaycircuit/gatewaycircuit/policy/emptyttl"
)

type emptyStep = emptyttl.Step

func runtimeGosched() { runtime.Gosched() }
