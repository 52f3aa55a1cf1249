package store_test

import (
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store/storetest"
)

func TestMemoryConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) store.Store { return store.NewMemory() })
}
