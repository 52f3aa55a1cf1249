// Package ledgertest checks that an idempotency.Ledger persists through a
// store.Store: that what one page records, the next page of the tab reads.
// It runs against store.Memory on the host and can run against the
// sessionStorage adapter under js/wasm, like storetest.
package ledgertest

import (
	"reflect"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
)

const t0 = int64(1_700_000_000_000)

// Run checks the ledger over a fresh store from newStore for each case.
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Helper()
	t.Run("a pending key survives a reload and is reused", func(t *testing.T) {
		s := newStore(t)
		page1 := mustNew(t, s)
		fp := "j:0123456789abcdef0123456789abcdef"
		key := page1.Derive(t0, "POST /api/orders", fp, [16]byte{1})
		if d, err := page1.Begin(t0, "POST /api/orders", key, fp); d != idempotency.Start || err != nil {
			t.Fatalf("Begin = %v, %v", d, err)
		}
		page2 := mustNew(t, s)
		page2.Load(t0 + 1000)
		if e, ok := page2.Lookup("POST /api/orders", key); !ok || e.State != idempotency.Pending {
			t.Fatalf("after reload: %+v, %v; want pending (in the page that is gone)", e, ok)
		}
		if again := page2.Derive(t0+2000, "POST /api/orders", fp, [16]byte{2}); again != key {
			t.Fatalf("Derive after reload = %s, want %s", again, key)
		}
		if d, err := page2.Begin(t0+2000, "POST /api/orders", key, fp); d != idempotency.Retry || err != nil {
			t.Fatalf("Begin after reload = %v, %v; want retry", d, err)
		}
	})
	t.Run("every field round-trips", func(t *testing.T) {
		s := newStore(t)
		page1 := mustNew(t, s)
		ops := []string{"POST https://app.test/api/주문?~0123456789abcdef", "DELETE /api/orders/7", "PUT /x"}
		keys := []string{`a "quoted" \ key`, "8e03978e-40d5-43e8-bc93-6894a57f9324", "k"}
		for i := range ops {
			if _, err := page1.Begin(t0+int64(i), ops[i], keys[i], "b:fp"+keys[i][:1]); err != nil {
				t.Fatal(err)
			}
		}
		page1.Finish(t0+10, ops[1], keys[1], 201)
		page1.Finish(t0+11, ops[2], keys[2], 0)
		want := page1.Entries()
		page2 := mustNew(t, s)
		page2.Load(t0 + 20)
		if got := page2.Entries(); !reflect.DeepEqual(got, want) {
			t.Fatalf("after reload:\n%+v\nwant\n%+v", got, want)
		}
	})
	t.Run("unreadable lines are dropped, the rest is kept and rewritten", func(t *testing.T) {
		s := newStore(t)
		good := "f\t1700000000000\t1700000000000\tj:1\tk1\tPOST /api/orders\n"
		mustSet(t, s, "garbage\n"+good+"x\t1\t2\tj:1\tk2\tPOST /a\nd\t5\t4\tj:1\tk3\tPOST /a\n{\"json\":true}\n")
		l := mustNew(t, s)
		l.Load(t0)
		if e := l.Entries(); len(e) != 1 || e[0].Key != "k1" {
			t.Fatalf("entries = %+v, want only k1", e)
		}
		if raw, _, _ := s.Get(idempotency.StorageKey); raw != good {
			t.Fatalf("stored %q, want %q", raw, good)
		}
	})
	t.Run("an empty ledger removes its stored entry", func(t *testing.T) {
		s := newStore(t)
		l := mustNew(t, s)
		_, _ = l.Begin(t0, "POST /a", "k1", "j:1")
		l.Finish(t0, "POST /a", "k1", 200)
		l.Load(t0 + idempotency.DefaultDoneRetentionMs)
		if raw, ok, err := s.Get(idempotency.StorageKey); ok || err != nil {
			t.Fatalf("stored %q, %v, %v; want nothing", raw, ok, err)
		}
	})
}

func mustNew(t *testing.T, s store.Store) *idempotency.Ledger {
	t.Helper()
	l, err := idempotency.New(idempotency.Policy{}, s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func mustSet(t *testing.T, s store.Store, v string) {
	t.Helper()
	if err := s.Set(idempotency.StorageKey, v); err != nil {
		t.Fatal(err)
	}
}
