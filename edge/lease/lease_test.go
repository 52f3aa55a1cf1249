//go:build !(js && wasm)

package lease_test

import (
	"errors"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/edge/lease"
	"github.com/gatewaycircuit/gatewaycircuit/edge/sqldb"
)

func table(t *testing.T) *lease.Table {
	db, err := sqldb.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tb, err := lease.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func TestLeaseSteps(t *testing.T) {
	tb := table(t)
	type step struct {
		op     string // take, renew, release
		owner  string
		now    int64
		want   bool
		holder string
	}
	for i, s := range []step{
		{"take", "a", 0, true, "a"},
		{"take", "b", 5, false, "a"},    // held
		{"renew", "b", 6, false, "a"},   // not the owner
		{"release", "b", 7, false, "a"}, // not the owner
		{"renew", "a", 8, true, "a"},    // until 18
		{"take", "b", 17, false, "a"},
		{"take", "b", 18, true, "b"},   // expired: taken over
		{"renew", "a", 19, false, "b"}, // a lost it
		{"release", "b", 20, true, ""},
		{"take", "a", 21, true, "a"},
	} {
		var got bool
		var err error
		switch s.op {
		case "take":
			got, err = tb.Take("job", s.owner, s.now, 10)
		case "renew":
			got, err = tb.Renew("job", s.owner, s.now, 10)
		case "release":
			got, err = tb.Release("job", s.owner)
		}
		holder, _, _ := tb.Holder("job", s.now)
		if err != nil || got != s.want || holder != s.holder {
			t.Fatalf("step %d %s %s at %d: %v %v holder %q; want %v %q", i, s.op, s.owner, s.now, got, err, holder, s.want, s.holder)
		}
	}
}

func TestRunHoldsTheLeaseForTheWholeJob(t *testing.T) {
	tb := table(t)
	now := int64(0)
	clock := func() int64 { return now }
	var second lease.Outcome
	out, err := tb.Run("job", "a", clock, 10, 3, func(i int) error {
		now += 5
		if i == 1 { // a second trigger mid-run does not run
			second, _ = tb.Run("job", "b", clock, 10, 3, func(int) error { t.Fatal("second run"); return nil })
		}
		return nil
	})
	if err != nil || !out.Ran || out.Steps != 3 || second.Ran || second.Holder != "a" {
		t.Fatalf("first %+v %v, second %+v", out, err, second)
	}
	if _, _, held := tb.Holder("job", now); held {
		t.Fatal("not released")
	}
	failed, _ := tb.Run("job", "c", clock, 10, 3, func(i int) error { return errors.New("boom") })
	if !failed.Ran || failed.Steps != 0 || failed.Failure != "boom" {
		t.Fatalf("%+v", failed)
	}
	// A run slower than its lease loses it at the first renewal.
	lost, _ := tb.Run("job", "d", clock, 10, 3, func(int) error { now += 11; return nil })
	if !lost.Lost || lost.Steps != 1 {
		t.Fatalf("%+v", lost)
	}
}
