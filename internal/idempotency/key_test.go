package idempotency_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/idempotency"
)

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestNewKeyIsAVersion4UUID(t *testing.T) {
	for _, random := range [][16]byte{{}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}} {
		if k := idempotency.NewKey(random); !uuidV4.MatchString(k) {
			t.Errorf("NewKey(%x) = %s, not a v4 UUID", random, k)
		}
	}
	if a, b := idempotency.NewKey([16]byte{1}), idempotency.NewKey([16]byte{2}); a == b {
		t.Fatal("different random bytes gave one key")
	}
}

func TestHeaderValue(t *testing.T) {
	for key, want := range map[string]string{
		"8e03978e-40d5-43e8-bc93-6894a57f9324": `"8e03978e-40d5-43e8-bc93-6894a57f9324"`,
		`a "b" \c`:                             `"a \"b\" \\c"`,
		" ":                                    `" "`,
	} {
		got, err := idempotency.HeaderValue(key)
		if err != nil || got != want {
			t.Errorf("HeaderValue(%q) = %q, %v; want %q", key, got, err, want)
		}
		back, err := idempotency.ParseHeader(got)
		if err != nil || back != key {
			t.Errorf("ParseHeader(%q) = %q, %v; want %q", got, back, err, key)
		}
	}
	for _, bad := range []string{"", "é", "a\tb", "a\nb", strings.Repeat("k", idempotency.MaxKeyLen+1)} {
		if _, err := idempotency.HeaderValue(bad); !errors.Is(err, idempotency.ErrInvalidKey) {
			t.Errorf("HeaderValue(%q) err = %v, want ErrInvalidKey", bad, err)
		}
	}
}

func TestParseHeader(t *testing.T) {
	for value, want := range map[string]string{
		`"8e03978e-40d5-43e8-bc93-6894a57f9324"`: "8e03978e-40d5-43e8-bc93-6894a57f9324",
		" \t\"k\"  ":                             "k",
		`"\\\""`:                                 `\"`,
		`"` + strings.Repeat("k", 255) + `"`:     strings.Repeat("k", 255),
	} {
		got, err := idempotency.ParseHeader(value)
		if err != nil || got != want {
			t.Errorf("ParseHeader(%q) = %q, %v; want %q", value, got, err, want)
		}
	}
	for _, bad := range []string{
		``, `""`, `"`, `k`, `8e03978e-40d5-43e8-bc93-6894a57f9324`, `"k";a=1`, `"k", "j"`, `"k"x`,
		`"a\b"`, `"k\"`, `"é"`, "\"a\x7fb\"", `"` + strings.Repeat("k", 256) + `"`, `'k'`,
	} {
		if k, err := idempotency.ParseHeader(bad); !errors.Is(err, idempotency.ErrInvalidKey) || k != "" {
			t.Errorf("ParseHeader(%q) = %q, %v; want ErrInvalidKey", bad, k, err)
		}
	}
}

func FuzzParseHeader(f *testing.F) {
	f.Add(`"8e03978e-40d5-43e8-bc93-6894a57f9324"`)
	f.Add(`"a \"b\" \\c"`)
	f.Fuzz(func(t *testing.T, value string) {
		key, err := idempotency.ParseHeader(value)
		if err != nil {
			if !errors.Is(err, idempotency.ErrInvalidKey) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		again, err := idempotency.HeaderValue(key)
		if err != nil {
			t.Fatalf("parsed key %q cannot be sent: %v", key, err)
		}
		if back, _ := idempotency.ParseHeader(again); back != key {
			t.Fatalf("round trip %q → %q → %q", key, again, back)
		}
	})
}
