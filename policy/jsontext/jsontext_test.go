package jsontext_test

import (
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/policy/jsontext"
)

func TestNumber(t *testing.T) {
	for in, want := range map[string]string{
		"0": "0", "-0": "-0", "12.5e-3,": "12.5e-3", "1E+9]": "1E+9", "10": "10",
		"01": "0", // the scanner stops after a leading 0; the caller sees "1" left over
	} {
		s := jsontext.Scanner{S: in}
		if got, ok := s.Number(); !ok || got != want {
			t.Errorf("Number(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "-", "+1", ".5", "1.", "1e", "1e+", "x"} {
		s := jsontext.Scanner{S: bad}
		if got, ok := s.Number(); ok {
			t.Errorf("Number(%q) = %q, want no number", bad, got)
		}
	}
}

func TestScanner(t *testing.T) {
	s := jsontext.Scanner{S: " \t\r\n true,null"}
	s.Space()
	if !s.Lit("true") || s.Lit("null") || !s.Eat(',') || s.Peek() != 'n' || !s.Lit("null") || !s.AtEnd() || s.Peek() != 0 {
		t.Fatalf("scanner at %d of %q", s.I, s.S)
	}
	if u, ok := jsontext.Hex4("D83dx"); !ok || u != 0xD83D {
		t.Fatalf("Hex4 = %x, %v", u, ok)
	}
	if _, ok := jsontext.Hex4("12g4"); ok {
		t.Fatal("Hex4 accepted a non-hex digit")
	}
}

func TestEscape(t *testing.T) {
	for in, want := range map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'} {
		if got, ok := jsontext.Escape(in); !ok || got != want {
			t.Errorf("Escape(%q) = %q, %v", in, got, ok)
		}
	}
	for _, bad := range []byte{'u', 'x', '0', '\''} {
		if _, ok := jsontext.Escape(bad); ok {
			t.Errorf("Escape(%q) accepted", bad)
		}
	}
}
