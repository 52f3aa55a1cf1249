//go:build js && wasm

package idempotency_test

import (
	"syscall/js"
	"testing"

	"github.com/hack-pad/safejs"

	"github.com/gatewaycircuit/gatewaycircuit/internal/idempotency/ledgertest"
	"github.com/gatewaycircuit/gatewaycircuit/internal/jsbridge"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
)

// TestLedgerPersistsThroughSessionStorage runs the persistence suite over
// the sessionStorage adapter, on a Web Storage fake (node has none).
func TestLedgerPersistsThroughSessionStorage(t *testing.T) {
	ledgertest.Run(t, func(*testing.T) store.Store {
		global := js.Global().Get("Function").New(`
			const m = new Map();
			return { Reflect, sessionStorage: {
				getItem: k => m.has(String(k)) ? m.get(String(k)) : null,
				setItem: (k, v) => { m.set(String(k), String(v)); },
				removeItem: k => { m.delete(String(k)); },
			} };`).Invoke()
		return jsbridge.NewSessionStorage(safejs.Safe(global))
	})
}
