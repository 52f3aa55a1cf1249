package retryafter_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gatewaycircuit/gatewaycircuit/policy/retryafter"
)

// now is Sun, 06 Nov 1994 08:49:37 GMT, the RFC's example date.
var now = time.Date(1994, time.November, 6, 8, 49, 37, 0, time.UTC).UnixMilli()

// The vectors are shared: the shim's retryAfterOf (js/src/query.ts), which
// reads the header where no wasm runs (before it loads, in fallback, on a
// server), runs every case too.
func TestParse(t *testing.T) {
	raw, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		NowMs int64
		Cases []struct {
			Value  string
			WantMs *int64
		}
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if file.NowMs != now || len(file.Cases) < 50 {
		t.Fatalf("testdata/vectors.json: nowMs %d, %d cases", file.NowMs, len(file.Cases))
	}
	for _, c := range file.Cases {
		got, ok := retryafter.Parse(c.Value, now)
		switch {
		case c.WantMs == nil && ok:
			t.Errorf("Parse(%q) = %d, want malformed", c.Value, got)
		case c.WantMs != nil && (!ok || got != *c.WantMs):
			t.Errorf("Parse(%q) = %d, %v; want %d", c.Value, got, ok, *c.WantMs)
		}
	}
}

func TestParseDoesNotOverflowAtExtremeNow(t *testing.T) {
	const minInt64 = -1 << 63
	if d, ok := retryafter.Parse("Fri, 31 Dec 9999 23:59:59 GMT", minInt64); !ok || d != retryafter.MaxDelayMs {
		t.Fatalf("got %d, %v", d, ok)
	}
	if d, ok := retryafter.Parse("Thu, 01 Jan 1970 00:00:00 GMT", 1<<63-1); !ok || d != 0 {
		t.Fatalf("got %d, %v", d, ok)
	}
}

func TestParseDateAgreesWithNetHTTPOnEveryForm(t *testing.T) {
	// One date per day over 400 years (a whole Gregorian cycle), each in the
	// three forms net/http writes and reads.
	start := time.Date(1900, 1, 1, 23, 59, 58, 0, time.UTC)
	for d := 0; d < 146097; d += 7 {
		tm := start.AddDate(0, 0, d)
		forms := []string{tm.Format(http.TimeFormat), tm.Format(time.ANSIC)}
		if y := tm.Year(); y >= 1969 && y < 2069 { // where the 2-digit year is unambiguous
			forms = append(forms, strings.Replace(tm.Format(time.RFC850), "UTC", "GMT", 1))
		}
		for _, s := range forms {
			got, ok := retryafter.ParseDate(s)
			if !ok || got != tm.UnixMilli() {
				t.Fatalf("ParseDate(%q) = %d, %v; want %d", s, got, ok, tm.UnixMilli())
			}
		}
	}
}

// FuzzParse checks that Parse never panics or returns a negative delay, and
// that every date it accepts is a date net/http reads the same way (the
// reverse does not hold: net/http also accepts lower-case names, fractional
// seconds, extra spaces and one-digit hours).
func FuzzParse(f *testing.F) {
	for _, s := range []string{"120", "0", "99999999999999999999", "Sun, 06 Nov 1994 08:49:37 GMT",
		"Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Wed, 29 Feb 2000 00:00:00 GMT", "-1", ""} {
		f.Add(s, now)
	}
	f.Fuzz(func(t *testing.T, value string, nowMs int64) {
		d, ok := retryafter.Parse(value, nowMs)
		if !ok {
			if d != 0 {
				t.Fatalf("malformed %q returned delay %d", value, d)
			}
			return
		}
		if d < 0 || d > retryafter.MaxDelayMs {
			t.Fatalf("Parse(%q, %d) = %d, out of range", value, nowMs, d)
		}
		v := strings.Trim(value, " \t")
		if v[0] >= '0' && v[0] <= '9' {
			return
		}
		ms, _ := retryafter.ParseDate(v)
		want, err := http.ParseTime(v)
		if err != nil || want.UnixMilli() != ms {
			t.Fatalf("ParseDate(%q) = %d but net/http says %v, %v", v, ms, want, err)
		}
	})
}

func ExampleParse() {
	now := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC).UnixMilli()
	for _, v := range []string{"2", "Fri, 02 Jan 2026 15:05:05 GMT", "Thu, 01 Jan 2026 00:00:00 GMT", "in a while"} {
		d, ok := retryafter.Parse(v, now)
		fmt.Println(d, ok)
	}
	// Output:
	// 2000 true
	// 60000 true
	// 0 true
	// 0 false
}
