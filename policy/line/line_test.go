package line_test

import (
	"strings"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/policy/line"
)

// Each kind of line reads back what its writer wrote, and a line of another
// kind, or with a field that is not a whole number, is not one.
func TestLinesRoundTrip(t *testing.T) {
	var b []byte
	b = line.AppendOption(b, line.Option{Name: "probe", Value: "maybe\nx=1"})
	b = line.AppendWarning(b, line.Warning{Text: `data-probe: "x=1" is not on or off`})
	b = line.AppendPause(b, line.Pause{UntilMs: 1_000_000_060_000, Strikes: 2, Service: "http://a.test/api/"})
	b = line.AppendAsked(b, line.Asked{Service: "http://a.test/api/"})
	got := strings.Split(string(b), "\n")
	want := []string{"probe=maybe x=1", `!data-probe: "x=1" is not on or off`, "1000000060000 2 http://a.test/api/", "retry-after http://a.test/api/", ""}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("lines: %q, want %q", got, want)
	}
	if o, ok := line.ParseOption(got[0]); !ok || o != (line.Option{Name: "probe", Value: "maybe x=1"}) {
		t.Errorf("ParseOption: %+v %v", o, ok)
	}
	if w, ok := line.ParseWarning(got[1]); !ok || w.Text != `data-probe: "x=1" is not on or off` {
		t.Errorf("ParseWarning: %+v %v", w, ok)
	}
	if p, ok := line.ParsePause(got[2]); !ok || p != (line.Pause{UntilMs: 1_000_000_060_000, Strikes: 2, Service: "http://a.test/api/"}) {
		t.Errorf("ParsePause: %+v %v", p, ok)
	}
	if a, ok := line.ParseAsked(got[3]); !ok || a.Service != "http://a.test/api/" {
		t.Errorf("ParseAsked: %+v %v", a, ok)
	}
	for _, bad := range []string{"retry-after s", "1.5 1 s", "1 s", "99999999999999999999 1 s", ""} {
		if p, ok := line.ParsePause(bad); ok {
			t.Errorf("ParsePause(%q) = %+v, want not a pause", bad, p)
		}
	}
	if _, ok := line.ParseOption("no equals sign"); ok {
		t.Error("ParseOption read a line without =")
	}
	if _, ok := line.ParseWarning("ttlMs=1"); ok {
		t.Error("ParseWarning read an option")
	}
}
