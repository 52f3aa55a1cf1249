// Package storetest is the conformance suite every store.Store must pass.
// It runs against store.Memory on the host and against the sessionStorage
// adapter under js/wasm (internal/jsbridge).
package storetest

import (
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
)

// Run checks the Store contract on a fresh store from newStore for each case.
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Helper()
	t.Run("missing key is not an error", func(t *testing.T) {
		s := newStore(t)
		v, ok, err := s.Get("absent")
		if err != nil || ok || v != "" {
			t.Fatalf("Get(absent) = %q, %v, %v; want \"\", false, nil", v, ok, err)
		}
	})
	t.Run("set then get", func(t *testing.T) {
		s := newStore(t)
		mustSet(t, s, "k", `{"until":1,"httpStatus":502}`)
		wantValue(t, s, "k", `{"until":1,"httpStatus":502}`)
	})
	t.Run("overwrite", func(t *testing.T) {
		s := newStore(t)
		mustSet(t, s, "k", "one")
		mustSet(t, s, "k", "two")
		wantValue(t, s, "k", "two")
	})
	t.Run("empty value is present", func(t *testing.T) {
		s := newStore(t)
		mustSet(t, s, "k", "")
		v, ok, err := s.Get("k")
		if err != nil || !ok || v != "" {
			t.Fatalf("Get(k) = %q, %v, %v; want \"\", true, nil", v, ok, err)
		}
	})
	t.Run("delete", func(t *testing.T) {
		s := newStore(t)
		mustSet(t, s, "k", "v")
		if err := s.Delete("k"); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		if _, ok, err := s.Get("k"); ok || err != nil {
			t.Fatalf("after Delete: ok=%v err=%v", ok, err)
		}
		if err := s.Delete("k"); err != nil {
			t.Fatalf("Delete of a missing key: %v", err)
		}
	})
	t.Run("keys are independent", func(t *testing.T) {
		s := newStore(t)
		mustSet(t, s, "a", "1")
		mustSet(t, s, "b", "2")
		wantValue(t, s, "a", "1")
		wantValue(t, s, "b", "2")
	})
	t.Run("unicode round-trips", func(t *testing.T) {
		s := newStore(t)
		mustSet(t, s, "k", "잠시 후 다시 시도해 주세요 \u2028 😀")
		wantValue(t, s, "k", "잠시 후 다시 시도해 주세요 \u2028 😀")
	})
}

func mustSet(t *testing.T, s store.Store, k, v string) {
	t.Helper()
	if err := s.Set(k, v); err != nil {
		t.Fatalf("Set(%q): %v", k, err)
	}
}

func wantValue(t *testing.T, s store.Store, k, want string) {
	t.Helper()
	v, ok, err := s.Get(k)
	if err != nil || !ok || v != want {
		t.Fatalf("Get(%q) = %q, %v, %v; want %q, true, nil", k, v, ok, err, want)
	}
}
