package cooldown_test

import (
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/cooldown"
)

func TestPausesSurviveAReload(t *testing.T) {
	const now = int64(1_700_000_000_000)
	a, _ := cooldown.New(cooldown.Policy{})
	v := a.Version()
	a.Limited(now, "http://app.test/api/", cooldown.NoRetryAfter, false) // 300 s
	a.Limited(now, "http://other.test", 60_000, true)
	if a.Version() == v {
		t.Fatal("version did not move")
	}
	b, _ := cooldown.New(cooldown.Policy{})
	b.Restore(a.Encode(), now+1000)
	if until, paused := b.Decide(now+1000, "http://app.test/api/"); !paused || until != now+300_000 {
		t.Fatalf("restored pause: until %d paused %v", until-now, paused)
	}
	// The strikes come back too: the next 429 doubles.
	if o := b.Limited(now+400_000, "http://app.test/api/", cooldown.NoRetryAfter, false); o.UntilMs != now+400_000+600_000 {
		t.Fatalf("second strike paused until +%d, want +600000", o.UntilMs-now-400_000)
	}
}

func TestRestoreIsDefensive(t *testing.T) {
	const now = int64(1_700_000_000_000)
	c, _ := cooldown.New(cooldown.Policy{})
	c.Restore("garbage\n1 x\n99999999999999999 1 http://far.test\n5 1 http://long-ago.test\n-1 -1 http://neg.test\n", now)
	if until, paused := c.Decide(now, "http://far.test"); !paused || until != now+cooldown.DefaultMaxPauseMs {
		t.Fatalf("a far-future pause must be clamped to the max: +%d", until-now)
	}
	if c.Len() != 1 {
		t.Fatalf("kept %d services, want only the clamped one", c.Len())
	}
}

func FuzzRestore(f *testing.F) {
	f.Add("1700000300000 1 http://app.test/api/\n")
	f.Fuzz(func(t *testing.T, raw string) {
		const now = int64(1_700_000_000_000)
		c, _ := cooldown.New(cooldown.Policy{})
		c.Restore(raw, now)
		d, _ := cooldown.New(cooldown.Policy{})
		d.Restore(c.Encode(), now)
		if d.Encode() != c.Encode() {
			t.Fatalf("Encode/Restore does not round-trip: %q vs %q", c.Encode(), d.Encode())
		}
	})
}
