package cooldown_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/policy/cooldown"
	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
	"github.com/gatewaycircuit/gatewaycircuit/policy/policyerr"
)

const (
	t0  = int64(1_700_000_000_000)
	api = "https://app.test/api/"
	no  = cooldown.NoRetryAfter
)

// step is one line of a script on a fake clock: the clock advances, at most
// one action runs on svc (api unless set), then the wants are checked.
type step struct {
	advance int64 // ms
	svc     string

	limited    bool  // a 429 ...
	retryAfter int64 // ... with this Retry-After in ms (no = absent)
	retried    bool  // ... to the one retry
	ok         bool  // any other response

	want      *cooldown.Outcome // of limited; UntilMs as an offset from t0
	wantPause int64             // Decide: remaining pause in ms at the end of the step; -1 = not paused
}

func out(a cooldown.Action, waitMs, untilOffset int64) *cooldown.Outcome {
	return &cooldown.Outcome{Action: a, WaitMs: waitMs, UntilMs: untilOffset}
}

func run(t *testing.T, p cooldown.Policy, steps []step) *cooldown.Cooldown {
	t.Helper()
	c, err := cooldown.New(p)
	if err != nil {
		t.Fatal(err)
	}
	now := t0
	for i, s := range steps {
		now += s.advance
		svc := s.svc
		if svc == "" {
			svc = api
		}
		switch {
		case s.limited:
			got := c.Limited(now, svc, s.retryAfter, s.retried)
			if got.UntilMs != 0 {
				got.UntilMs -= t0
			}
			if s.want != nil && got != *s.want {
				t.Fatalf("step %d: Limited = %+v, want %+v", i, got, *s.want)
			}
		case s.ok:
			c.Succeeded(now, svc)
		}
		if s.wantPause != 0 {
			until, paused := c.Decide(now, svc)
			remaining := int64(-1)
			if paused {
				remaining = until - now
			}
			if remaining != s.wantPause {
				t.Fatalf("step %d: remaining pause = %d, want %d", i, remaining, s.wantPause)
			}
		}
	}
	return c
}

// long is the policy of the first version (300 s without Retry-After), which
// makes the arithmetic of the longer scripts easy to follow.
var long = cooldown.Policy{PauseMs: 300_000}

func TestCooldownScripts(t *testing.T) {
	tests := []struct {
		name  string
		p     cooldown.Policy
		steps []step
	}{
		{"no Retry-After: 5 s by default, waited out and retried once; the retry's 429 pauses 10 s", cooldown.Policy{}, []step{
			{wantPause: -1},
			{limited: true, retryAfter: no, want: out(cooldown.Retry, 5000, 5000), wantPause: 5000},
			{advance: 5000, limited: true, retryAfter: no, retried: true, want: out(cooldown.Pause, 0, 5000+10_000), wantPause: 10_000},
			{svc: "https://other.test", wantPause: -1},
		}},
		{"no Retry-After with a long PauseMs: the whole service pauses", long, []step{
			{wantPause: -1},
			{limited: true, retryAfter: no, want: out(cooldown.Pause, 0, 300_000), wantPause: 300_000},
			{advance: 299_999, wantPause: 1},
			{advance: 1, wantPause: -1},
			{svc: "https://other.test", wantPause: -1},
		}},
		{"Retry-After 2 s: wait and retry once; a second 429 pauses, doubled", cooldown.Policy{}, []step{
			{limited: true, retryAfter: 2000, want: out(cooldown.Retry, 2000, 2000), wantPause: 2000},
			{advance: 2000, wantPause: -1},
			{limited: true, retryAfter: 2000, retried: true, want: out(cooldown.Pause, 0, 2000+4000), wantPause: 4000},
		}},
		{"Retry-After 10 s is still retried, 11 s is not", cooldown.Policy{}, []step{
			{limited: true, retryAfter: 10_000, want: out(cooldown.Retry, 10_000, 10_000)},
			{svc: "https://b.test", limited: true, retryAfter: 11_000, want: out(cooldown.Pause, 0, 11_000)},
		}},
		{"Retry-After 0 is waited as 1 s", cooldown.Policy{}, []step{
			{limited: true, retryAfter: 0, want: out(cooldown.Retry, 1000, 1000)},
		}},
		{"repeated 429s double the pause up to 30 min", long, []step{
			{limited: true, retryAfter: no, wantPause: 300_000},
			{advance: 300_000, limited: true, retryAfter: no, wantPause: 600_000},
			{advance: 600_000, limited: true, retryAfter: no, wantPause: 1_200_000},
			{advance: 1_200_000, limited: true, retryAfter: no, wantPause: 1_800_000},
			{advance: 1_800_000, limited: true, retryAfter: no, wantPause: 1_800_000},
		}},
		{"Retry-After is capped at 30 min", cooldown.Policy{}, []step{
			{limited: true, retryAfter: 86_400_000, want: out(cooldown.Pause, 0, 1_800_000)},
		}},
		{"stragglers add no strike but a later Retry-After extends", cooldown.Policy{}, []step{
			{limited: true, retryAfter: 60_000, wantPause: 60_000},
			{advance: 10, limited: true, retryAfter: no, want: out(cooldown.Pause, 0, 60_000)},
			{advance: 10, limited: true, retryAfter: 30_000, want: out(cooldown.Pause, 0, 60_000)},
			{advance: 10, limited: true, retryAfter: 90_000, want: out(cooldown.Pause, 0, 90_030)},
			{advance: 90_000, limited: true, retryAfter: 60_000, want: out(cooldown.Pause, 0, 90_030+120_000)},
		}},
		{"stragglers of a short pause wait for its end", cooldown.Policy{}, []step{
			{limited: true, retryAfter: 3000, want: out(cooldown.Retry, 3000, 3000)},
			{advance: 1000, limited: true, retryAfter: 3000, want: out(cooldown.Retry, 3000, 4000)},
		}},
		{"a success ends the strikes, not the pause in force", long, []step{
			{limited: true, retryAfter: no},
			{advance: 1000, ok: true, wantPause: 299_000},
			{advance: 299_000, limited: true, retryAfter: no, wantPause: 300_000},
		}},
		{"a success after the pause forgets the service", long, []step{
			{limited: true, retryAfter: no},
			{advance: 300_000, ok: true},
			{limited: true, retryAfter: no, wantPause: 300_000},
		}},
		{"quiet for 30 min after a pause: strikes start over", long, []step{
			{limited: true, retryAfter: no},
			{advance: 300_000 + 1_799_999, limited: true, retryAfter: no, wantPause: 600_000},
			{advance: 600_000 + 1_800_000, limited: true, retryAfter: no, wantPause: 300_000},
		}},
		{"services are paused independently", long, []step{
			{svc: "https://a.test", limited: true, retryAfter: no},
			{svc: "https://b.test", wantPause: -1},
			{svc: "https://a.test", wantPause: 300_000},
		}},
		{"disabled: the 429 goes to the app", cooldown.Policy{Mode: mode.Off}, []step{
			{limited: true, retryAfter: 2000, want: out(cooldown.None, 0, 0), wantPause: -1},
		}},
		{"no retry: every 429 pauses", cooldown.Policy{NoRetry: true}, []step{
			{limited: true, retryAfter: 2000, want: out(cooldown.Pause, 0, 2000)},
		}},
		{"custom pause and cap", cooldown.Policy{PauseMs: 1000, MaxPauseMs: 3000, RetryMaxMs: 500}, []step{
			{limited: true, retryAfter: no, want: out(cooldown.Pause, 0, 1000)},
			{advance: 1000, limited: true, retryAfter: no, want: out(cooldown.Pause, 0, 1000+2000)},
			{advance: 2000, limited: true, retryAfter: no, want: out(cooldown.Pause, 0, 3000+3000)},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { run(t, tt.p, tt.steps) })
	}
}

func TestFullTableForgetsTheLeastRecentlyUpdatedService(t *testing.T) {
	c := run(t, cooldown.Policy{PauseMs: 300_000, MaxServices: 2}, []step{
		{svc: "https://a.test", limited: true, retryAfter: no},
		{svc: "https://b.test", limited: true, retryAfter: no},
		{svc: "https://a.test", limited: true, retryAfter: no}, // a straggler: a is now the most recent
		{svc: "https://c.test", limited: true, retryAfter: no},
		{svc: "https://b.test", wantPause: -1},
		{svc: "https://a.test", wantPause: 300_000},
		{svc: "https://c.test", wantPause: 300_000},
	})
	if c.Evicted() != 1 {
		t.Fatalf("Evicted = %d, want 1", c.Evicted())
	}
}

func TestService(t *testing.T) {
	scope := []string{"https://app.test/api/", "https://app.test/api/v2/", "https://cdn.test/"}
	for url, want := range map[string]string{
		"https://app.test/api/users":     "https://app.test/api/",
		"https://app.test/api/v2/users":  "https://app.test/api/v2/",
		"https://cdn.test/x.png":         "https://cdn.test/",
		"https://other.test:8443/a?b#c":  "https://other.test:8443",
		"https://other.test?x=1":         "https://other.test",
		"https://other.test":             "https://other.test",
		"/relative/path://not-an-origin": "/relative/path://not-an-origin",
		"":                               "",
	} {
		if got := cooldown.Service(url, scope); got != want {
			t.Errorf("Service(%q) = %q, want %q", url, got, want)
		}
	}
}

func FuzzService(f *testing.F) {
	f.Add("https://app.test/api/users", "https://app.test/api/")
	f.Add("http://[::1]:8080/x", "")
	f.Fuzz(func(t *testing.T, url, scope string) {
		got := cooldown.Service(url, []string{scope})
		if !strings.HasPrefix(url, got) {
			t.Fatalf("Service(%q) = %q, not a prefix of the URL", url, got)
		}
	})
}

func TestPolicyValidateNamesTheField(t *testing.T) {
	for _, c := range []struct {
		p     cooldown.Policy
		field string
	}{
		{cooldown.Policy{PauseMs: -1}, "pauseMs"},
		{cooldown.Policy{MaxPauseMs: -1}, "maxPauseMs"},
		{cooldown.Policy{PauseMs: 2_000_000}, "pauseMs"},
		{cooldown.Policy{RetryMaxMs: -5}, "retryMaxMs"},
		{cooldown.Policy{MaxServices: -1}, "maxServices"},
	} {
		_, err := cooldown.New(c.p)
		if got := policyerr.Field(err, cooldown.ErrInvalidPolicy); got != c.field {
			t.Errorf("New(%+v) err = %v, want a policy error for %s", c.p, err, c.field)
		}
	}
}

func TestClearChosenKeepsOnlyWhatTheServerAskedFor(t *testing.T) {
	c, _ := cooldown.New(cooldown.Policy{})
	c.Limited(t0, "https://chosen.test", no, true)            // 5 s, our default
	c.Limited(t0, "https://asked.test", 60_000, true)         // 60 s, Retry-After
	c.Limited(t0, "https://extended.test", no, true)          // ours, then
	c.Limited(t0+10, "https://extended.test", 120_000, false) // a straggler's Retry-After takes over
	c.Limited(t0+20, "https://shorter.test", no, true)        // ours, and
	c.Limited(t0+30, "https://shorter.test", 1000, false)     // a shorter Retry-After leaves it ours
	want := []cooldown.Paused{
		{Service: "https://chosen.test", UntilMs: t0 + 5000, Strikes: 1},
		{Service: "https://asked.test", UntilMs: t0 + 60_000, Strikes: 1, ServerAsked: true},
		{Service: "https://extended.test", UntilMs: t0 + 10 + 120_000, Strikes: 1, ServerAsked: true},
		{Service: "https://shorter.test", UntilMs: t0 + 20 + 5000, Strikes: 1},
	}
	if got := c.Pauses(t0 + 100); !slices.Equal(got, want) {
		t.Fatalf("Pauses =\n%+v\nwant\n%+v", got, want)
	}
	if want[0].Reason() != cooldown.ReasonRateLimited || want[1].Reason() != cooldown.ReasonRetryAfter {
		t.Fatal("Reason does not say who chose the pause")
	}
	if !c.ClearChosen() {
		t.Fatal("ClearChosen changed nothing")
	}
	if got := c.Pauses(t0 + 100); !slices.Equal(got, []cooldown.Paused{want[1], want[2]}) {
		t.Fatalf("after ClearChosen: %+v", got)
	}
	if _, paused := c.Decide(t0+100, "https://chosen.test"); paused {
		t.Fatal("a chosen pause survived ClearChosen")
	}
	// Its strikes went too: the next 429 is a first one again.
	if o := c.Limited(t0+200, "https://chosen.test", no, false); o.Action != cooldown.Retry || o.WaitMs != 5000 {
		t.Fatalf("after ClearChosen a 429 gave %+v, want a first strike (retry in 5 s)", o)
	}
	if c.ClearChosen(); c.ClearChosen() {
		t.Fatal("a second ClearChosen changed something")
	}
}

func TestPausesListsOnlyPausesInForce(t *testing.T) {
	c, _ := cooldown.New(long)
	c.Limited(t0, api, no, true)
	c.Succeeded(t0+1, api) // strikes end, the pause stays
	if got := c.Pauses(t0 + 300_000); len(got) != 0 {
		t.Fatalf("an ended pause is listed: %+v", got)
	}
}

// TestClockJumpBackIsClamped: every read clamps the pause to now + max, in
// memory too, so Date.now() going back an hour cannot hold a service for 65 min.
func TestClockJumpBackIsClamped(t *testing.T) {
	c, _ := cooldown.New(long)
	c.Limited(t0, api, no, true)
	back := t0 - 3_600_000
	if until, paused := c.Decide(back, api); !paused || until != back+cooldown.DefaultMaxPauseMs {
		t.Fatalf("after the clock went back an hour: until now%+d, want now+%d", until-back, cooldown.DefaultMaxPauseMs)
	}
	if got := c.Pauses(back); len(got) != 1 || got[0].UntilMs != back+cooldown.DefaultMaxPauseMs {
		t.Fatalf("Pauses = %+v", got)
	}
}
