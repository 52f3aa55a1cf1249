package negcache_test

import (
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
	"github.com/gatewaycircuit/gatewaycircuit/policy/negcache"
	"github.com/gatewaycircuit/gatewaycircuit/policy/policyerr"
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

// always is the first version's behaviour: the mechanism under test,
// whether or not an outage just ended.
var always = negcache.Policy{Mode: mode.Always}

func TestNegativeCacheScripts(t *testing.T) {
	tests := []struct {
		name  string
		p     negcache.Policy
		steps []step
	}{
		{"with a cached value: 30 -> 60 -> 120 -> 120 s", always, []step{
			{wantLeft: -1},
			{fail: true, cached: true, wantLeft: 30_000},
			{advance: 29_999, wantLeft: 1},
			{advance: 1, wantLeft: -1},
			{fail: true, cached: true, wantUntil: 30_000 + 60_000},
			{advance: 60_000, fail: true, cached: true, wantUntil: 90_000 + 120_000},
			{advance: 120_000, fail: true, cached: true, wantUntil: 210_000 + 120_000},
		}},
		{"nothing cached: 5 s first, then the schedule", always, []step{
			{fail: true, wantLeft: 5000},
			{advance: 5000, fail: true, wantLeft: 30_000},
			{advance: 30_000, fail: true, wantLeft: 60_000},
		}},
		{"stragglers inside the window change nothing", always, []step{
			{fail: true, cached: true},
			{advance: 100, fail: true, cached: true, wantUntil: 30_000},
			{advance: 100, fail: true, wantUntil: 30_000, wantLeft: 29_800},
		}},
		{"success resets the schedule", always, []step{
			{fail: true, cached: true},
			{advance: 30_000, fail: true, cached: true, wantLeft: 60_000},
			{advance: 60_000, succeed: true, wantLeft: -1},
			{fail: true, cached: true, wantLeft: 30_000},
		}},
		{"clear resets everything", always, []step{
			{fail: true, cached: true},
			{key: "GET /b", fail: true},
			{clear: true, wantLeft: -1},
			{key: "GET /b", wantLeft: -1},
			{fail: true, wantLeft: 5000},
		}},
		{"a key quiet for 120 s after its window starts over", always, []step{
			{fail: true, cached: true},
			{advance: 30_000, fail: true, cached: true, wantLeft: 60_000},
			{advance: 60_000 + 120_000, fail: true, cached: true, wantLeft: 30_000},
		}},
		{"keys are independent", always, []step{
			{fail: true, cached: true},
			{key: "GET /other", wantLeft: -1},
		}},
		{"disabled", negcache.Policy{Mode: mode.Off}, []step{
			{fail: true, wantUntil: -t0, wantLeft: -1},
		}},
		{"custom schedule", negcache.Policy{Mode: mode.Always, BackoffMs: []int64{1000, 2000}, FirstUncachedMs: 500}, []step{
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
	c, _ := negcache.New(always)
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
	c := run(t, negcache.Policy{Mode: mode.Always, MaxKeys: 2}, []step{
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

// TestByDefaultOnlyAfterAnOutage: a flaky-but-healthy API (a random 500
// now and then, the circuit never armed) must not look worse with the
// module: nothing is recorded, nothing answered, the app's retry goes out.
func TestByDefaultOnlyAfterAnOutage(t *testing.T) {
	c, _ := negcache.New(negcache.Policy{})
	if until := c.Failed(t0, users, false); until != 0 || c.Len() != 0 {
		t.Fatalf("a 500 with no outage was recorded until t0%+d", until-t0)
	}
	if _, hit := c.Decide(t0+1, users); hit {
		t.Fatal("the retry of a transient 500 was answered from the cache")
	}
	c.OutageEnded(t0 + 10_000) // the probe succeeded: the gateway is back
	if until := c.Failed(t0+10_000, users, false); until != t0+15_000 {
		t.Fatalf("after the outage: Failed = t0%+d, want t0+15000", until-t0)
	}
	if _, hit := c.Decide(t0+12_000, users); !hit {
		t.Fatal("a key failing right after the outage was asked again at once")
	}
	if c.Active(t0+40_000) || c.Failed(t0+40_000, "GET /other", false) != 0 {
		t.Fatal("still active 30 s after the outage")
	}
	if _, hit := c.Decide(t0+40_000, users); hit {
		t.Fatal("answered after the 30 s")
	}
}

// TestFlakyAPIErrorRate is the acceptance of the default: an upstream with
// 10% random 500s, an app that retries a failed query up to 3 times (as
// TanStack does), a query every second for 10 minutes. The error rate users
// see must be the same with the negative cache as without it.
func TestFlakyAPIErrorRate(t *testing.T) {
	seen := func(p negcache.Policy) (errors int) {
		c, _ := negcache.New(p)
		rnd := uint32(12345)
		flaky := func() bool { // 10% 500s, a fixed xorshift sequence
			rnd ^= rnd << 13
			rnd ^= rnd >> 17
			rnd ^= rnd << 5
			return rnd%10 == 0
		}
		now := t0
		for range 600 {
			failed := true
			for attempt := 0; attempt < 4 && failed; attempt++ {
				now += 1000 << attempt >> 1 // 0.5, 1, 2, 4 s backoff, like TanStack's
				if _, hit := c.Decide(now, users); hit {
					continue // answered with the failure again, without the network
				}
				if failed = flaky(); failed {
					c.Failed(now, users, false)
				} else {
					c.Succeeded(users)
				}
			}
			if failed {
				errors++
			}
		}
		return errors
	}
	without, always, byDefault := seen(negcache.Policy{Mode: mode.Off}), seen(always), seen(negcache.Policy{})
	t.Logf("queries failing after 3 retries, of 600: %d without the cache, %d with the default, %d always on", without, byDefault, always)
	if byDefault > without {
		t.Fatalf("errors seen: %d with the default, %d without the cache", byDefault, without)
	}
	if always <= without {
		t.Fatalf("the always-on cache (%d errors) should show why it is not the default (%d without)", always, without)
	}
}

// TestClockJumpBack: a window read after the clock went back is clamped to
// the widest window, not stretched by the jump.
func TestClockJumpBack(t *testing.T) {
	c, _ := negcache.New(always)
	c.Failed(t0, users, true) // 30 s
	back := t0 - 3_600_000
	if until, hit := c.Decide(back, users); !hit || until != back+120_000 {
		t.Fatalf("after the clock went back an hour: until now%+d, want now+120000", until-back)
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
		{negcache.Policy{AfterOutageMs: -1}, "afterOutageMs"},
	} {
		_, err := negcache.New(c.p)
		if got := policyerr.Field(err, negcache.ErrInvalidPolicy); got != c.field {
			t.Errorf("New(%+v) err = %v, want a policy error for %s", c.p, err, c.field)
		}
	}
}
