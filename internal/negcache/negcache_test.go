package negcache_test

import (
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/negcache"
	"github.com/gatewaycircuit/gatewaycircuit/internal/policyerr"
)

const (
	t0    = int64(1_700_000_000_000)
	users = "GET https://app.test/api/users"
)

// step: the clock advances, at most one action runs on key (users unless
// set), then Decide is checked: wantLeft is the window left in ms, -1 = miss.
type step struct {
	advance   int64
	key       string
	fail      bool
	cached    bool // with fail: a stale copy exists
	succeed   bool
	clear     bool
	wantUntil int64 // of fail, as an offset from t0; 0 = not checked
	wantLeft  int64 // 0 = not checked
}

func run(t *testing.T, p negcache.Policy, steps []step) *negcache.Cache {
	t.Helper()
	c, err := negcache.New(p)
	if err != nil {
		t.Fatal(err)
	}
	now := t0
	for i, s := range steps {
		now += s.advance
		key := s.key
		if key == "" {
			key = users
		}
		switch {
		case s.fail:
			until := c.Failed(now, key, s.cached)
			if s.wantUntil != 0 && until != t0+s.wantUntil {
				t.Fatalf("step %d: Failed = t0%+d, want t0%+d", i, until-t0, s.wantUntil)
			}
		case s.succeed:
			c.Succeeded(key)
		case s.clear:
			c.Clear()
		}
		if s.wantLeft != 0 {
			until, hit := c.Decide(now, key)
			left := int64(-1)
			if hit {
				left = until - now
			}
			if left != s.wantLeft {
				t.Fatalf("step %d: window left = %d, want %d", i, left, s.wantLeft)
			}
		}
	}
	return c
}

func TestNegativeCacheScripts(t *testing.T) {
	tests := []struct {
		name  string
		p     negcache.Policy
		steps []step
	}{
		{"with a cached value: 30 -> 60 -> 120 -> 120 s", negcache.Policy{}, []step{
			{wantLeft: -1},
			{fail: true, cached: true, wantLeft: 30_000},
			{advance: 29_999, wantLeft: 1},
			{advance: 1, wantLeft: -1},
			{fail: true, cached: true, wantUntil: 30_000 + 60_000},
			{advance: 60_000, fail: true, cached: true, wantUntil: 90_000 + 120_000},
			{advance: 120_000, fail: true, cached: true, wantUntil: 210_000 + 120_000},
		}},
		{"nothing cached: 5 s first, then the schedule", negcache.Policy{}, []step{
			{fail: true, wantLeft: 5000},
			{advance: 5000, fail: true, wantLeft: 30_000},
			{advance: 30_000, fail: true, wantLeft: 60_000},
		}},
		{"stragglers inside the window change nothing", negcache.Policy{}, []step{
			{fail: true, cached: true},
			{advance: 100, fail: true, cached: true, wantUntil: 30_000},
			{advance: 100, fail: true, wantUntil: 30_000, wantLeft: 29_800},
		}},
		{"success resets the schedule", negcache.Policy{}, []step{
			{fail: true, cached: true},
			{advance: 30_000, fail: true, cached: true, wantLeft: 60_000},
			{advance: 60_000, succeed: true, wantLeft: -1},
			{fail: true, cached: true, wantLeft: 30_000},
		}},
		{"clear resets everything", negcache.Policy{}, []step{
			{fail: true, cached: true},
			{key: "GET /b", fail: true},
			{clear: true, wantLeft: -1},
			{key: "GET /b", wantLeft: -1},
			{fail: true, wantLeft: 5000},
		}},
		{"a key quiet for 120 s after its window starts over", negcache.Policy{}, []step{
			{fail: true, cached: true},
			{advance: 30_000, fail: true, cached: true, wantLeft: 60_000},
			{advance: 60_000 + 120_000, fail: true, cached: true, wantLeft: 30_000},
		}},
		{"keys are independent", negcache.Policy{}, []step{
			{fail: true, cached: true},
			{key: "GET /other", wantLeft: -1},
		}},
		{"disabled", negcache.Policy{Disabled: true}, []step{
			{fail: true, wantUntil: -t0, wantLeft: -1},
		}},
		{"custom schedule", negcache.Policy{BackoffMs: []int64{1000, 2000}, FirstUncachedMs: 500}, []step{
			{fail: true, wantLeft: 500},
			{advance: 500, fail: true, wantLeft: 1000},
			{advance: 1000, fail: true, wantLeft: 2000},
			{advance: 2000, fail: true, wantLeft: 2000},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { run(t, tt.p, tt.steps) })
	}
}

func TestRenderStormReachesTheNetworkTwiceIn30s(t *testing.T) {
	c, _ := negcache.New(negcache.Policy{})
	network := 0
	for now := t0; now < t0+30_000; now += 16 { // every frame
		if _, hit := c.Decide(now, users); hit {
			continue
		}
		network++
		c.Failed(now, users, false)
	}
	if network != 2 {
		t.Fatalf("network = %d, want 2 (at 0 s and at 5 s)", network)
	}
}

func TestFullTableEvictsTheOldestFailure(t *testing.T) {
	c := run(t, negcache.Policy{MaxKeys: 2}, []step{
		{key: "a", fail: true, cached: true},
		{key: "b", fail: true, cached: true},
		{key: "c", fail: true, cached: true},
		{key: "a", wantLeft: -1},
		{key: "b", wantLeft: 30_000},
		{key: "c", wantLeft: 30_000},
	})
	if c.Evicted() != 1 || c.Len() != 2 {
		t.Fatalf("Evicted = %d, Len = %d; want 1, 2", c.Evicted(), c.Len())
	}
}

func TestFailure(t *testing.T) {
	for status, want := range map[int]bool{0: true, 500: true, 502: true, 599: true, 200: false, 404: false, 429: false, 600: false} {
		if negcache.Failure(status) != want {
			t.Errorf("Failure(%d) = %v", status, !want)
		}
	}
}

func TestPolicyValidateNamesTheField(t *testing.T) {
	for _, c := range []struct {
		p     negcache.Policy
		field string
	}{
		{negcache.Policy{BackoffMs: []int64{}}, "backoffMs"},
		{negcache.Policy{BackoffMs: []int64{30_000, 0}}, "backoffMs"},
		{negcache.Policy{FirstUncachedMs: -1}, "firstUncachedMs"},
		{negcache.Policy{MaxKeys: -1}, "maxKeys"},
	} {
		_, err := negcache.New(c.p)
		if got := policyerr.Field(err, negcache.ErrInvalidPolicy); got != c.field {
			t.Errorf("New(%+v) err = %v, want a policy error for %s", c.p, err, c.field)
		}
	}
}
