package jsontext_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/policy/jsontext"
)

// FuzzNumber checks the number scanner the stored-payload and canonical-JSON
// parsers share against encoding/json: what it consumes is a JSON number
// (and one strconv can read), and it consumes the longest one there is.
func FuzzNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "12.5e-3,", "1E+9]", "01", "-", "1.", "1e+", "9007199254740993", "1e400", "-0.0e-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s := jsontext.Scanner{S: in}
		got, ok := s.Number()
		if !ok {
			// Then no prefix of in that json.Valid accepts is a number a
			// longer scan would have found; check the whole input at least.
			if json.Valid([]byte(in)) && len(in) > 0 && (in[0] == '-' || in[0] >= '0' && in[0] <= '9') {
				t.Fatalf("Number(%q) refused a JSON number", in)
			}
			return
		}
		if !json.Valid([]byte(got)) {
			t.Fatalf("Number(%q) = %q, not JSON", in, got)
		}
		if _, err := strconv.ParseFloat(got, 64); err != nil && err.(*strconv.NumError).Err != strconv.ErrRange {
			t.Fatalf("Number(%q) = %q, strconv: %v", in, got, err)
		}
		// Longest match: the number followed by the next byte is not a
		// longer valid number (a leading 0 stops the scan, as in JSON).
		if s.I < len(in) && !isSpace(in[s.I]) && json.Valid([]byte(in[:s.I+1])) {
			t.Fatalf("Number(%q) = %q stopped early", in, got)
		}
	})
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
