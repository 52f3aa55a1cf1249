package stale_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
	"github.com/gatewaycircuit/gatewaycircuit/policy/policyerr"
	"github.com/gatewaycircuit/gatewaycircuit/policy/stale"
)

const t0 = int64(1_700_000_000_000)

// step: the clock advances, then one action on key ("users" unless set), then
// the wants.
type step struct {
	advance int64
	key     string
	store   int64  // body bytes; with cc
	cc      string // Cache-Control of the stored response
	remove  bool

	wantID      uint32 // of store
	lookup      bool   // after the action, check Lookup:
	wantAge     int64  // the age served, or -1 for "not servable"
	wantServed  uint32 // the id Lookup returns, when set
	wantDropped string // ids dropped by this step, e.g. "[1 2]"; "" = not checked
	wantBytes   int64  // 0 = not checked
}

var on = stale.Policy{Mode: mode.On}

func run(t *testing.T, p stale.Policy, steps []step) *stale.Index {
	t.Helper()
	x, err := stale.New(p)
	if err != nil {
		t.Fatal(err)
	}
	now := t0
	for i, s := range steps {
		now += s.advance
		key := s.key
		if key == "" {
			key = "users"
		}
		switch {
		case s.store != 0:
			if id := x.Store(now, key, max(s.store, 0), s.cc); s.wantID != 0 && id != s.wantID {
				t.Fatalf("step %d: Store = %d, want %d", i, id, s.wantID)
			}
		case s.remove:
			x.Remove(key)
		}
		if s.lookup {
			c, ok := x.Lookup(now, key)
			age := int64(-1)
			if ok {
				age = c.AgeMs
			}
			if age != s.wantAge || (ok && s.wantServed != 0 && c.ID != s.wantServed) {
				t.Fatalf("step %d: Lookup = %+v, %v; want age %d, id %d", i, c, ok, s.wantAge, s.wantServed)
			}
		}
		if d := fmt.Sprint(x.Dropped()); s.wantDropped != "" && d != s.wantDropped {
			t.Fatalf("step %d: dropped %s, want %s", i, d, s.wantDropped)
		}
		if s.wantBytes != 0 && x.Bytes() != s.wantBytes {
			t.Fatalf("step %d: bytes = %d, want %d", i, x.Bytes(), s.wantBytes)
		}
	}
	return x
}

func TestIndexScripts(t *testing.T) {
	tests := []struct {
		name  string
		p     stale.Policy
		steps []step
	}{
		{"off by default: nothing is kept", stale.Policy{}, []step{
			{store: 100, wantID: 0, lookup: true, wantAge: -1},
		}},
		{"served until 1 h old, then dropped", on, []step{
			{store: 100, wantID: 1},
			{advance: 3_599_999, lookup: true, wantAge: 3_599_999, wantServed: 1},
			{advance: 1, lookup: true, wantAge: -1, wantDropped: "[1]", wantBytes: 0},
		}},
		{"stale-if-error overrides the limit, counted past max-age", on, []step{
			{store: 100, cc: "max-age=60, stale-if-error=30"},
			{advance: 89_999, lookup: true, wantAge: 89_999},
			{advance: 1, lookup: true, wantAge: -1},
			{key: "long", store: 100, cc: "stale-if-error=86400"},
			{key: "long", advance: 3_600_000 * 5, lookup: true, wantAge: 3_600_000 * 5},
		}},
		{"a newer response replaces the copy and drops the old body", on, []step{
			{store: 100, wantID: 1},
			{advance: 1000, store: 150, wantID: 2, wantDropped: "[1]", wantBytes: 150},
			{advance: 1000, lookup: true, wantAge: 1000, wantServed: 2},
		}},
		{"no-store is never kept and removes the copy", on, []step{
			{store: 100, wantID: 1},
			{store: 100, cc: "private, No-Store", wantID: 0, wantDropped: "[1]", lookup: true, wantAge: -1},
		}},
		{"a body over the byte budget is not kept", stale.Policy{Mode: mode.On, MaxBytes: 1000}, []step{
			{store: 1001, wantID: 0, lookup: true, wantAge: -1},
			{store: 1000, wantID: 1, lookup: true, wantAge: 0},
		}},
		{"the entry bound evicts the least recently used", stale.Policy{Mode: mode.On, MaxEntries: 2}, []step{
			{key: "a", store: 10, wantID: 1},
			{key: "b", store: 10, wantID: 2},
			{key: "a", lookup: true, wantAge: 0}, // a is served: now the most recent
			{key: "c", store: 10, wantID: 3, wantDropped: "[2]"},
			{key: "b", lookup: true, wantAge: -1},
			{key: "a", lookup: true, wantAge: 0},
		}},
		{"the byte budget evicts until it fits", stale.Policy{Mode: mode.On, MaxBytes: 100}, []step{
			{key: "a", store: 40},
			{key: "b", store: 40},
			{key: "c", store: 90, wantDropped: "[1 2]", wantBytes: 90},
		}},
		{"remove", on, []step{
			{store: 10},
			{remove: true, lookup: true, wantAge: -1, wantDropped: "[1]"},
		}},
		{"a clock set back serves at age 0", on, []step{
			{store: 10},
			{advance: -5000, lookup: true, wantAge: 0},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { run(t, tt.p, tt.steps) })
	}
}

func TestEvictedCounts(t *testing.T) {
	x := run(t, stale.Policy{Mode: mode.On, MaxEntries: 3}, []step{
		{key: "a", store: 1}, {key: "b", store: 1}, {key: "c", store: 1}, {key: "d", store: 1}, {key: "e", store: 1},
		{key: "a", store: 1}, // replacing is not evicting
	})
	if x.Evicted() != 3 || x.Len() != 3 {
		t.Fatalf("Evicted = %d, Len = %d; want 3, 3", x.Evicted(), x.Len())
	}
}

func TestPolicyValidateNamesTheField(t *testing.T) {
	for _, c := range []struct {
		p     stale.Policy
		field string
	}{
		{stale.Policy{MaxEntries: -1}, "maxEntries"},
		{stale.Policy{MaxBytes: -1}, "maxBytes"},
		{stale.Policy{MaxStaleMs: -1}, "maxStaleMs"},
	} {
		_, err := stale.New(c.p)
		if got := policyerr.Field(err, stale.ErrInvalidPolicy); got != c.field {
			t.Errorf("New(%+v) err = %v, want a policy error for %s", c.p, err, c.field)
		}
	}
}

func TestParseCacheControl(t *testing.T) {
	tests := []struct {
		in   string
		want stale.CacheControl
	}{
		{"", stale.CacheControl{MaxAge: -1, StaleIfError: -1}},
		{"max-age=60", stale.CacheControl{MaxAge: 60, StaleIfError: -1}},
		{"public, max-age=60, stale-if-error=86400", stale.CacheControl{MaxAge: 60, StaleIfError: 86400}},
		{"MAX-AGE=5,Stale-If-Error=7", stale.CacheControl{MaxAge: 5, StaleIfError: 7}},
		{` max-age = "120" `, stale.CacheControl{MaxAge: 120, StaleIfError: -1}},
		{"max-age=10, max-age=20", stale.CacheControl{MaxAge: 10, StaleIfError: -1}},
		{"max-age=abc, max-age=20", stale.CacheControl{MaxAge: 20, StaleIfError: -1}},
		{"max-age=-1", stale.CacheControl{MaxAge: -1, StaleIfError: -1}},
		{"max-age", stale.CacheControl{MaxAge: -1, StaleIfError: -1}},
		{"max-age=", stale.CacheControl{MaxAge: -1, StaleIfError: -1}},
		{"max-age=99999999999999999999999", stale.CacheControl{MaxAge: stale.MaxDeltaSeconds, StaleIfError: -1}},
		{`private="a, max-age=5", max-age=9`, stale.CacheControl{MaxAge: 9, StaleIfError: -1}},
		{`x="a\", max-age=5", max-age=9`, stale.CacheControl{MaxAge: 9, StaleIfError: -1}},
		{"no-store", stale.CacheControl{MaxAge: -1, StaleIfError: -1, NoStore: true}},
		{"s-maxage=60, no-cache", stale.CacheControl{MaxAge: -1, StaleIfError: -1}},
		{"ſtale-if-error=5, max-age=3", stale.CacheControl{MaxAge: 3, StaleIfError: -1}},
		{"max-ages=60, xmax-age=3", stale.CacheControl{MaxAge: -1, StaleIfError: -1}},
	}
	for _, tt := range tests {
		if got := stale.ParseCacheControl(tt.in); got != tt.want {
			t.Errorf("ParseCacheControl(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// FuzzParseCacheControl: no panic, numbers in range, and what is parsed
// survives being written back and read again.
func FuzzParseCacheControl(f *testing.F) {
	for _, s := range []string{"max-age=60, stale-if-error=86400", `private="a,b", max-age="5"`, "no-store", `x="\"`, "max-age=99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		cc := stale.ParseCacheControl(v)
		for _, n := range []int64{cc.MaxAge, cc.StaleIfError} {
			if n < -1 || n > stale.MaxDeltaSeconds {
				t.Fatalf("ParseCacheControl(%q) = %+v: out of range", v, cc)
			}
		}
		if cc.MaxAge >= 0 && !strings.Contains(strings.ToLower(v), "max-age") {
			t.Fatalf("ParseCacheControl(%q) found a max-age that is not there", v)
		}
		var parts []string
		if cc.MaxAge >= 0 {
			parts = append(parts, "max-age="+strconv.FormatInt(cc.MaxAge, 10))
		}
		if cc.StaleIfError >= 0 {
			parts = append(parts, "stale-if-error="+strconv.FormatInt(cc.StaleIfError, 10))
		}
		if cc.NoStore {
			parts = append(parts, "no-store")
		}
		if again := stale.ParseCacheControl(strings.Join(parts, ", ")); again != cc {
			t.Fatalf("round trip of %q: %+v then %+v", v, cc, again)
		}
	})
}
