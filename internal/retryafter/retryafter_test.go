package retryafter_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gatewaycircuit/gatewaycircuit/internal/retryafter"
)

// now is Sun, 06 Nov 1994 08:49:37 GMT, the RFC's example date.
var now = time.Date(1994, time.November, 6, 8, 49, 37, 0, time.UTC).UnixMilli()

func TestParse(t *testing.T) {
	tests := []struct {
		value string
		want  int64 // ms; -1 = malformed
	}{
		// delay-seconds
		{"0", 0},
		{"2", 2000},
		{" 120\t", 120_000},
		{"0010", 10_000},
		{"9007199254740", 9_007_199_254_740_000},
		{"9007199254741", retryafter.MaxDelayMs},
		{"99999999999999999999999999999", retryafter.MaxDelayMs},
		{"-1", -1},
		{"+5", -1},
		{"1.5", -1},
		{"0.5", -1}, // malformed is absent: the caller's default, never a long pause
		{".5", -1},
		{"5.", -1},
		{"5s", -1},
		{"1e3", -1},
		{"120, 120", -1}, // two headers combined
		{"", -1},
		{"  ", -1},
		// IMF-fixdate
		{"Sun, 06 Nov 1994 08:49:37 GMT", 0},
		{"Sun, 06 Nov 1994 08:50:07 GMT", 30_000},
		{"Mon, 07 Nov 1994 08:49:37 GMT", 86_400_000},
		{"Sat, 05 Nov 1994 08:49:37 GMT", 0}, // the past: retry now
		{"Thu, 01 Jan 1970 00:00:00 GMT", 0},
		{"Fri, 31 Dec 9999 23:59:59 GMT", 253402300799000 - now},
		{"Wed, 29 Feb 2000 00:00:00 GMT", time.Date(2000, 2, 29, 0, 0, 0, 0, time.UTC).UnixMilli() - now},
		{"Mon, 07 Nov 1994 08:49:37 UTC", -1},
		{"Mon, 07 Nov 1994 08:49:37 +0000", -1},
		{"mon, 07 nov 1994 08:49:37 GMT", -1}, // names are case-sensitive
		{"Xyz, 07 Nov 1994 08:49:37 GMT", -1},
		{"Mon, 7 Nov 1994 08:49:37 GMT", -1},
		{"Mon, 07 Nov 94 08:49:37 GMT", -1},
		{"Tue, 29 Feb 1900 00:00:00 GMT", -1}, // 1900 is not a leap year
		{"Sat, 31 Apr 2000 00:00:00 GMT", -1},
		{"Sat, 00 Apr 2000 00:00:00 GMT", -1},
		{"Sat, 01 Apr 2000 24:00:00 GMT", -1},
		{"Sat, 01 Apr 2000 23:60:00 GMT", -1},
		{"Sat, 01 Apr 2000 23:59:60 GMT", -1}, // leap second
		{"Sat, 01 Apr 2000 23-59-59 GMT", -1},
		// RFC 850
		{"Sunday, 06-Nov-94 08:50:37 GMT", 60_000},
		{"Monday, 07-Nov-94 08:49:37 GMT", 86_400_000},
		{"Thursday, 01-Jan-70 00:00:00 GMT", 0},
		{"Sun, 06-Nov-94 08:49:37 GMT", -1},
		{"Sunday, 06-Nov-1994 08:49:37 GMT", -1},
		{"Sunday 06-Nov-94 08:49:37 GMT", -1},
		// asctime
		{"Sun Nov  6 08:51:37 1994", 120_000},
		{"Sun Nov 06 08:51:37 1994", 120_000},
		{"Sun Nov 6 08:51:37 1994", -1},
		{"Sun Nov  6 08:51:37 94", -1},
		// junk
		{"soon", -1},
		{"Sun, 06 Nov 1994 08:49:37 GMT; extra", -1},
	}
	for _, tt := range tests {
		got, ok := retryafter.Parse(tt.value, now)
		if !ok {
			got = -1
		}
		if got != tt.want {
			t.Errorf("Parse(%q) = %d, want %d", tt.value, got, tt.want)
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
