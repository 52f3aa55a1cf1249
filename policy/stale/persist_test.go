package stale_test

import (
	"slices"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
	"github.com/gatewaycircuit/gatewaycircuit/policy/stale"
)

func TestRestoreKeepsCopiesAndIds(t *testing.T) {
	a, _ := stale.New(stale.Policy{Mode: mode.On, MaxStaleMs: 120_000})
	a.Store(1_000, "/a", 10, "")
	a.Store(2_000, "/b", 20, "max-age=5, stale-if-error=60")
	sa, _ := a.Saved("/a")
	sb, _ := a.Saved("/b")
	if sb.LimitMs != 65_000 || sa.LimitMs != 120_000 || sb.ID != 2 {
		t.Fatalf("saved %+v %+v", sa, sb)
	}

	b, _ := stale.New(stale.Policy{Mode: mode.On, MaxStaleMs: 120_000})
	b.Restore([]stale.Saved{sa, sb})
	if b.Len() != 2 || b.Bytes() != 30 {
		t.Fatalf("len %d bytes %d", b.Len(), b.Bytes())
	}
	c, ok := b.Lookup(31_000, "/a")
	if !ok || c.ID != 1 || c.AgeMs != 30_000 || c.StoredAtMs != 1_000 {
		t.Fatalf("lookup /a = %+v %v", c, ok)
	}
	if _, ok := b.Lookup(67_000, "/b"); ok {
		t.Fatal("/b is past its stale-if-error limit")
	}
	if id := b.Store(70_000, "/c", 1, ""); id != 3 {
		t.Fatalf("new id %d, want 3 (above the restored ones)", id)
	}
}

func TestRestoreSkipsBadEntriesAndBounds(t *testing.T) {
	x, _ := stale.New(stale.Policy{Mode: mode.On, MaxEntries: 2})
	x.Restore([]stale.Saved{
		{Key: "", ID: 1, LimitMs: 1},
		{Key: "/zero", ID: 0, LimitMs: 1},
		{Key: "/neg", ID: 2, Bytes: -1, LimitMs: 1},
		{Key: "/1", ID: 3, LimitMs: 1_000},
		{Key: "/2", ID: 4, LimitMs: 1_000},
		{Key: "/3", ID: 5, LimitMs: 1_000},
	})
	if x.Len() != 2 || x.Evicted() != 1 {
		t.Fatalf("len %d evicted %d", x.Len(), x.Evicted())
	}
	if d := x.Dropped(); !slices.Equal(d, []uint32{3}) {
		t.Fatalf("dropped %v", d)
	}
}
