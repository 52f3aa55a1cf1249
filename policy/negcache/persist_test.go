package negcache_test

import (
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
	"github.com/gatewaycircuit/gatewaycircuit/policy/negcache"
)

func TestSavedAndRestoreKeepTheSchedule(t *testing.T) {
	a, _ := negcache.New(negcache.Policy{Mode: mode.Always})
	a.Failed(0, "/a", true)      // 30 s
	a.Failed(40_000, "/a", true) // 60 s: until 100 s
	a.Failed(0, "/b", false)     // 5 s
	var saved []negcache.Saved
	for _, k := range []string{"/b", "/a", "/missing"} {
		if s, ok := a.Saved(k); ok {
			saved = append(saved, s)
		}
	}
	if len(saved) != 2 || saved[1] != (negcache.Saved{Key: "/a", UntilMs: 100_000, Steps: 2}) {
		t.Fatalf("saved = %+v", saved)
	}

	b, _ := negcache.New(negcache.Policy{Mode: mode.Always})
	b.Restore(50_000, saved)
	if until, hit := b.Decide(50_000, "/a"); !hit || until != 100_000 {
		t.Fatalf("restored /a: until %d hit %v", until, hit)
	}
	// The schedule goes on where it was: the third failure waits 120 s.
	if until := b.Failed(100_000, "/a", true); until != 220_000 {
		t.Fatalf("third failure until %d, want 220000", until)
	}
	// /b ended at 5 s; at 50 s it is out of its window but still remembered.
	if _, hit := b.Decide(50_000, "/b"); hit {
		t.Fatal("/b should be out of its window")
	}
}

func TestRestoreClampsSkipsAndBounds(t *testing.T) {
	c, _ := negcache.New(negcache.Policy{Mode: mode.Always, MaxKeys: 2})
	c.Restore(1_000_000, []negcache.Saved{
		{Key: "/old", UntilMs: 1_000, Steps: 1},          // quiet for long: skipped
		{Key: "/far", UntilMs: 99_000_000_000, Steps: 1}, // clamped to now + 120 s
		{Key: "", UntilMs: 2_000_000, Steps: 1},          // no key: skipped
		{Key: "/x", UntilMs: 1_010_000, Steps: 1},
		{Key: "/y", UntilMs: 1_010_000, Steps: 1}, // the bound evicts /far
	})
	if c.Len() != 2 || c.Evicted() != 1 {
		t.Fatalf("len %d evicted %d", c.Len(), c.Evicted())
	}
	if _, ok := c.Saved("/old"); ok {
		t.Fatal("/old restored")
	}
	d, _ := negcache.New(negcache.Policy{Mode: mode.Always})
	d.Restore(1_000_000, []negcache.Saved{{Key: "/far", UntilMs: 99_000_000_000, Steps: 1}})
	if until, _ := d.Decide(1_000_000, "/far"); until != 1_120_000 {
		t.Fatalf("clamped until %d", until)
	}
}
