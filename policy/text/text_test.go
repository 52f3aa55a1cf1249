package text_test

import (
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/gatewaycircuit/gatewaycircuit/policy/text"
)

// isASCII reports whether s has only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Every rune, alone and between letters: Lower agrees with strings.ToLower
// wherever that is ASCII, and TrimSpace with strings.TrimSpace everywhere.
func TestEveryRune(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		for _, s := range []string{string(r), "On" + string(r), string(r) + "X" + string(r), " \t" + string(r) + "\u3000"} {
			if want := strings.ToLower(s); isASCII(want) && text.Lower(s) != want {
				t.Fatalf("Lower(%q) = %q, strings.ToLower: %q", s, text.Lower(s), want)
			}
			if got, want := text.TrimSpace(s), strings.TrimSpace(s); got != want {
				t.Fatalf("TrimSpace(%q) = %q, strings.TrimSpace: %q", s, got, want)
			}
		}
	}
}

func TestLowerKeepsWhatItDoesNotLower(t *testing.T) {
	for in, want := range map[string]string{
		"ON": "on", "Cross-Orİgİn": "cross-origin", "\u212aB": "kb", "Évian": "Évian",
		"\xc4": "\xc4", "\xe2\x84": "\xe2\x84", "QuotaExceededError": "quotaexceedederror", "": "",
	} {
		if got := text.Lower(in); got != want {
			t.Errorf("Lower(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzAgreesWithStrings(f *testing.F) {
	for _, s := range []string{" on ", "TRUE", "\u0085x\u00a0", "\xff ", " \xe2\x80", "İ", "\u212a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if want := strings.ToLower(s); isASCII(want) && text.Lower(s) != want {
			t.Fatalf("Lower(%q) = %q, strings.ToLower: %q", s, text.Lower(s), want)
		}
		if got, want := text.TrimSpace(s), strings.TrimSpace(s); got != want {
			t.Fatalf("TrimSpace(%q) = %q, strings.TrimSpace: %q", s, got, want)
		}
	})
}

func TestInt(t *testing.T) {
	for _, s := range []string{"0", "-0", "+7", "007", "120000", "-", "+", "", " 1", "1 ", "1_000", "0x10", "1e3", "١",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "99999999999999999999"} {
		sameInt(t, s)
	}
}

func sameInt(t *testing.T, s string) {
	t.Helper()
	want, err := strconv.ParseInt(s, 10, 64)
	got, ok := text.Int(s)
	if ok != (err == nil) || ok && got != want {
		t.Fatalf("Int(%q) = %d, %v; strconv.ParseInt: %d, %v", s, got, ok, want, err)
	}
	if a, err := strconv.Atoi(s); ok != (err == nil) || ok && int64(a) != got {
		t.Fatalf("Int(%q) = %d, %v; strconv.Atoi: %d, %v", s, got, ok, a, err)
	}
}

func FuzzInt(f *testing.F) {
	for _, s := range []string{"0", "-12", "+3", "9223372036854775808", "-9223372036854775808", "1a"} {
		f.Add(s)
	}
	f.Fuzz(sameInt)
}
