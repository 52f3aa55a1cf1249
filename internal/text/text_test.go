package text_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/gatewaycircuit/gatewaycircuit/internal/text"
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
