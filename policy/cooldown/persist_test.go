package cooldown_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/policy/cooldown"
)

func TestPausesSurviveAReload(t *testing.T) {
	const now = int64(1_700_000_000_000)
	a, _ := cooldown.New(cooldown.Policy{PauseMs: 300_000})
	v := a.Version()
	a.Limited(now, "http://app.test/api/", cooldown.NoRetryAfter, false) // 300 s
	a.Limited(now, "http://other.test", 60_000, true)
	if a.Version() == v {
		t.Fatal("version did not move")
	}
	b, _ := cooldown.New(cooldown.Policy{PauseMs: 300_000})
	b.Restore(a.Encode(), now+1000)
	if until, paused := b.Decide(now+1000, "http://app.test/api/"); !paused || until != now+300_000 {
		t.Fatalf("restored pause: until %d paused %v", until-now, paused)
	}
	// The strikes come back too: the next 429 doubles.
	if o := b.Limited(now+400_000, "http://app.test/api/", cooldown.NoRetryAfter, false); o.UntilMs != now+400_000+600_000 {
		t.Fatalf("second strike paused until +%d, want +600000", o.UntilMs-now-400_000)
	}
}

// TestRestoreReplaces: what is stored is the whole state; a pause another
// instance of the tab ended is ended here too when the storage is read again.
func TestRestoreReplaces(t *testing.T) {
	const now = int64(1_700_000_000_000)
	a, _ := cooldown.New(cooldown.Policy{})
	a.Limited(now, "http://one.test", 60_000, true)
	a.Limited(now, "http://two.test", cooldown.NoRetryAfter, true)
	b, _ := cooldown.New(cooldown.Policy{})
	b.Restore(a.Encode(), now)
	a.ClearChosen() // the other instance: the user's "try again"
	v := b.Version()
	b.Restore(a.Encode(), now+1)
	if got := b.Pauses(now + 1); len(got) != 1 || got[0].Service != "http://one.test" {
		t.Fatalf("after the other instance's clear: %+v", got)
	}
	b.Restore("", now+2)
	if got := b.Pauses(now + 2); len(got) != 0 || b.Version() == v {
		t.Fatalf("nothing stored: %+v (version moved: %v)", got, b.Version() != v)
	}
}

// TestWhoChoseThePauseSurvivesAReload: after F5, the user's "try again"
// still ends the pause the module chose and keeps the one the server asked for.
func TestWhoChoseThePauseSurvivesAReload(t *testing.T) {
	const now = int64(1_700_000_000_000)
	a, _ := cooldown.New(cooldown.Policy{})
	a.Limited(now, "http://chosen.test", cooldown.NoRetryAfter, true)
	a.Limited(now, "http://asked.test", 60_000, true)
	raw := a.Encode()
	want := "1700000005000 1 http://chosen.test\n1700000060000 1 http://asked.test\nretry-after http://asked.test\n"
	if raw != want {
		t.Fatalf("Encode = %q, want %q", raw, want)
	}
	b, _ := cooldown.New(cooldown.Policy{})
	b.Restore(raw, now+1000)
	b.ClearChosen()
	if got := b.Pauses(now + 1000); len(got) != 1 || got[0].Service != "http://asked.test" || !got[0].ServerAsked {
		t.Fatalf("after reload and ClearChosen: %+v", got)
	}
	// The first format (no retry-after lines) reads as pauses the module chose.
	c, _ := cooldown.New(cooldown.Policy{})
	c.Restore("1700000060000 1 http://old.test\nretry-after http://unknown.test\n", now)
	if got := c.Pauses(now); len(got) != 1 || got[0].ServerAsked {
		t.Fatalf("first format: %+v", got)
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

// The vectors are shared with the shim's reader (js/src/storage.test.ts,
// readPauses): the pre-ready gate and the stand-in read the stored pauses
// as Restore does.
func TestRestoreVectors(t *testing.T) {
	raw, err := os.ReadFile("testdata/pause_vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Now     int64 `json:"now"`
		Vectors []struct {
			Name string  `json:"name"`
			Raw  string  `json:"raw"`
			Want [][]any `json:"want"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	for _, v := range file.Vectors {
		t.Run(v.Name, func(t *testing.T) {
			c, _ := cooldown.New(cooldown.Policy{})
			c.Restore(v.Raw, file.Now)
			var got []string
			for _, p := range c.Pauses(file.Now) {
				got = append(got, fmt.Sprint(p.Service, " ", p.UntilMs, " ", p.ServerAsked))
			}
			var want []string
			for _, w := range v.Want {
				want = append(want, fmt.Sprint(w[0], " ", int64(w[1].(float64)), " ", w[2]))
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}
