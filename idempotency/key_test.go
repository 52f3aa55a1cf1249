package idempotency_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/idempotency"
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
		back, err := idempotency.ParseKey(got)
		if err != nil || back != key {
			t.Errorf("ParseKey(%q) = %q, %v; want %q", got, back, err, key)
		}
	}
	for _, bad := range []string{"", "é", "a\tb", "a\nb", strings.Repeat("k", idempotency.MaxKeyLen+1)} {
		if _, err := idempotency.HeaderValue(bad); !errors.Is(err, idempotency.ErrInvalidKey) {
			t.Errorf("HeaderValue(%q) err = %v, want ErrInvalidKey", bad, err)
		}
	}
}

func TestParseKeyString(t *testing.T) {
	for value, want := range map[string]string{
		`"8e03978e-40d5-43e8-bc93-6894a57f9324"`: "8e03978e-40d5-43e8-bc93-6894a57f9324",
		" \t\"k\"  ":                             "k",
		`"\\\""`:                                 `\"`,
		`"` + strings.Repeat("k", 255) + `"`:     strings.Repeat("k", 255),
	} {
		got, err := idempotency.ParseKey(value)
		if err != nil || got != want {
			t.Errorf("ParseKey(%q) = %q, %v; want %q", value, got, err, want)
		}
	}
	for _, bad := range []string{
		``, `""`, `"`, `"k";a=1`, `"k", "j"`, `"k"x`,
		`"a\b"`, `"k\"`, `"é"`, "\"a\x7fb\"", `"` + strings.Repeat("k", 256) + `"`,
	} {
		if k, err := idempotency.ParseKey(bad); !errors.Is(err, idempotency.ErrInvalidKey) || k != "" {
			t.Errorf("ParseKey(%q) = %q, %v; want ErrInvalidKey", bad, k, err)
		}
	}
}

func FuzzParseKey(f *testing.F) {
	f.Add(`"8e03978e-40d5-43e8-bc93-6894a57f9324"`)
	f.Add(`"a \"b\" \\c"`)
	f.Fuzz(func(t *testing.T, value string) {
		key, err := idempotency.ParseKey(value)
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
		if back, _ := idempotency.ParseKey(again); back != key {
			t.Fatalf("round trip %q → %q → %q", key, again, back)
		}
	})
}

func TestParseKey(t *testing.T) {
	long := strings.Repeat("k", idempotency.MaxKeyLen)
	for _, tc := range []struct {
		value, key string
		ok         bool
	}{
		{`"order-7"`, "order-7", true},
		{` "order-7"	`, "order-7", true},
		{`order_7`, "order_7", true},
		{`  order_7 `, "order_7", true},
		{long, long, true},
		{`"` + long + `"`, long, true},
		{long + "k", "", false},
		{``, "", false},
		{`""`, "", false},
		{`"a`, "", false},
		{`a b`, "", false},
		{`a,b`, "", false},
		{`a"b`, "", false},
		{`a\b`, "", false},
		{"a\x7fb", "", false},
		{"caf\u00e9", "", false},
		{`"a", "b"`, "", false},
	} {
		key, err := idempotency.ParseKey(tc.value)
		if key != tc.key || (err == nil) != tc.ok || (err != nil && !errors.Is(err, idempotency.ErrInvalidKey)) {
			t.Errorf("%q: %q %v, want %q %v", tc.value, key, err, tc.key, tc.ok)
		}
	}
}
