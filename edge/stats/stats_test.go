//go:build !(js && wasm)

package stats_test

import (
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/edge/sqldb"
	"github.com/gatewaycircuit/gatewaycircuit/edge/stats"
)

func TestCountsAreWrittenOnFlushOrOnceASecond(t *testing.T) {
	db, err := sqldb.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := int64(0)
	clock := func() int64 { return now }
	s, _ := stats.Open(db, clock)
	s.Add("hits", 1)
	s.Add("hits", 1)
	if got := reopen(t, db, clock).Get("hits"); got != 0 {
		t.Fatalf("written before a second passed: %d", got)
	}
	now += stats.DefaultFlushEveryMs
	s.Add("hits", 1) // due: all three written
	if got := reopen(t, db, clock).Get("hits"); got != 3 {
		t.Fatalf("after a second: %d, want 3", got)
	}
	s.Add("misses", 2)
	s.Flush()
	r := reopen(t, db, clock)
	if r.Get("misses") != 2 || len(r.Snapshot()) != 2 {
		t.Fatalf("after Flush: %v", r.Snapshot())
	}
}

func reopen(t *testing.T, db sqldb.DB, now func() int64) *stats.Set {
	t.Helper()
	s, err := stats.Open(db, now)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
