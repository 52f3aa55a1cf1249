//go:build js && wasm

package jsbridge_test

import (
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/idempotency/ledgertest"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
)

// TestLedgerPersistsThroughSessionStorage runs the idempotency ledger's
// persistence suite over the sessionStorage adapter.
func TestLedgerPersistsThroughSessionStorage(t *testing.T) {
	ledgertest.Run(t, func(t *testing.T) store.Store {
		return newStorage(t, working)
	})
}
