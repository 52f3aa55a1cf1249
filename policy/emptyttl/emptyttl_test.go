package emptyttl_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/policy/emptyttl"
	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
	"github.com/gatewaycircuit/gatewaycircuit/policy/policyerr"
)

const (
	t0  = int64(1_700_000_000_000)
	key = "GET https://app.test/api/notifications"
)

// step: the clock advances; then an answer from the network (empty or "full")
// or a clear; then the wants. wantLeft: reuse left in ms, -1 = go to the network.
type step struct {
	advance int64
	empty   bool
	full    bool
	clear   bool
	wantTTL int64 // of the answer
	wantLft int64 // 0 = not checked
}

var on = emptyttl.Policy{Mode: mode.On}

func TestTrackerScripts(t *testing.T) {
	tests := []struct {
		name  string
		p     emptyttl.Policy
		steps []step
	}{
		{"3 empty in a row: 60 s; 5: 120 s; the first non-empty snaps back", on, []step{
			{empty: true, wantTTL: 0, wantLft: -1},
			{empty: true, wantTTL: 0, wantLft: -1},
			{empty: true, wantTTL: 60_000, wantLft: 60_000},
			{advance: 59_999, wantLft: 1},
			{advance: 1, wantLft: -1},
			{empty: true, wantTTL: 60_000},
			{advance: 60_000, empty: true, wantTTL: 120_000, wantLft: 120_000},
			{advance: 120_000, empty: true, wantTTL: 120_000},
			{advance: 120_000, full: true, wantTTL: 0, wantLft: -1},
			{empty: true, wantTTL: 0, wantLft: -1},
		}},
		{"off by default", emptyttl.Policy{}, []step{
			{empty: true}, {empty: true}, {empty: true, wantTTL: 0, wantLft: -1},
		}},
		{"clear forgets the streak", on, []step{
			{empty: true}, {empty: true}, {empty: true, wantTTL: 60_000},
			{clear: true, wantLft: -1},
			{empty: true, wantTTL: 0},
		}},
		{"custom steps", emptyttl.Policy{Mode: mode.On, Steps: []emptyttl.Step{{Streak: 1, TTLMs: 1000}}}, []step{
			{empty: true, wantTTL: 1000, wantLft: 1000},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := emptyttl.New(tt.p)
			if err != nil {
				t.Fatal(err)
			}
			now := t0
			for i, s := range tt.steps {
				now += s.advance
				switch {
				case s.empty || s.full:
					if got := tr.Observe(now, key, s.empty); got != s.wantTTL {
						t.Fatalf("step %d: Observe = %d, want %d", i, got, s.wantTTL)
					}
				case s.clear:
					tr.Clear()
				}
				if s.wantLft != 0 {
					left := int64(-1)
					if until, hit := tr.Decide(now, key); hit {
						left = until - now
					}
					if left != s.wantLft {
						t.Fatalf("step %d: reuse left %d, want %d", i, left, s.wantLft)
					}
				}
			}
		})
	}
}

func TestFullTableForgetsTheOldestKey(t *testing.T) {
	tr, _ := emptyttl.New(emptyttl.Policy{Mode: mode.On, MaxKeys: 1, Steps: []emptyttl.Step{{Streak: 1, TTLMs: 1000}}})
	tr.Observe(t0, "a", true)
	tr.Observe(t0, "b", true)
	if _, hit := tr.Decide(t0, "a"); hit || tr.Evicted() != 1 {
		t.Fatalf("a still tracked (evicted %d)", tr.Evicted())
	}
}

func TestEmpty(t *testing.T) {
	for body, want := range map[string]bool{
		"": true, "  \n": true, "[]": true, "[ \n ]": true, "{}": true, " { } ": true, "null": true, " null\n": true,
		"[0]": false, `{"a":1}`: false, `{"items":[]}`: false, "0": false, `""`: false, "[": false, "]": false,
		"[}": false, "nul": false, "nulll": false, "[[]]": false,
		// The glue gives Go a body whole only up to ShortBody bytes: a
		// longer one is never empty, whoever asks.
		strings.Repeat(" ", emptyttl.ShortBody-2) + "[]": true, strings.Repeat(" ", emptyttl.ShortBody-1) + "[]": false,
	} {
		if got := emptyttl.Empty([]byte(body)); got != want {
			t.Errorf("Empty(%q) = %v, want %v", body, got, want)
		}
	}
}

// FuzzEmpty: whatever Empty calls empty, encoding/json reads as an empty
// array, an empty object or null (or the body is blank).
func FuzzEmpty(f *testing.F) {
	for _, s := range []string{"[]", " { } ", "null", `{"a":[]}`, "[ 1 ]", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if !emptyttl.Empty(body) {
			return
		}
		if len(trim(body)) == 0 {
			return // blank: no JSON at all
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatalf("Empty(%q) but it is not JSON: %v", body, err)
		}
		switch x := v.(type) {
		case nil:
		case []any:
			if len(x) != 0 {
				t.Fatalf("Empty(%q) but it has %d items", body, len(x))
			}
		case map[string]any:
			if len(x) != 0 {
				t.Fatalf("Empty(%q) but it has %d fields", body, len(x))
			}
		default:
			t.Fatalf("Empty(%q) but it is a %T", body, v)
		}
	})
}

func trim(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}

func TestPolicyValidateNamesTheField(t *testing.T) {
	for _, c := range []struct {
		p     emptyttl.Policy
		field string
	}{
		{emptyttl.Policy{Steps: []emptyttl.Step{}}, "steps"},
		{emptyttl.Policy{Steps: []emptyttl.Step{{Streak: 0, TTLMs: 1}}}, "steps"},
		{emptyttl.Policy{Steps: []emptyttl.Step{{Streak: 3, TTLMs: 1}, {Streak: 3, TTLMs: 2}}}, "steps"},
		{emptyttl.Policy{Steps: []emptyttl.Step{{Streak: 3, TTLMs: 0}}}, "steps"},
		{emptyttl.Policy{MaxKeys: -1}, "maxKeys"},
	} {
		_, err := emptyttl.New(c.p)
		if got := policyerr.Field(err, emptyttl.ErrInvalidPolicy); got != c.field {
			t.Errorf("New(%+v) err = %v, want a policy error for %s", c.p, err, c.field)
		}
	}
}

// TestClockJumpBackIsClamped: a reuse window read after Date.now() went
// back an hour lasts at most the longest step, not an hour more.
func TestClockJumpBackIsClamped(t *testing.T) {
	tr, _ := emptyttl.New(emptyttl.Policy{Mode: mode.On})
	const now = int64(1_700_000_000_000)
	for i := range 5 {
		tr.Observe(now+int64(i), "GET /a", true) // 120 s
	}
	back := now - 3_600_000
	if until, hit := tr.Decide(back, "GET /a"); !hit || until != back+120_000 {
		t.Fatalf("after the clock went back: until now%+d, hit %v; want now+120000", until-back, hit)
	}
}
