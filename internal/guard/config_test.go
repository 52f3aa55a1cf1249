package guard_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/guard"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
)

type attributeVector struct {
	Name    string            `json:"name"`
	Attrs   map[string]string `json:"attrs"`
	Options map[string]string `json:"options"`
	Warn    []string          `json:"warn"`
}

// The vectors are shared with the shim's pre-ready reader (js/src/config.test.ts).
func TestParseAttributesVectors(t *testing.T) {
	raw, err := os.ReadFile("testdata/attribute_vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors []attributeVector
	if err := json.Unmarshal(raw, &vectors); err != nil {
		t.Fatal(err)
	}
	for _, v := range vectors {
		t.Run(v.Name, func(t *testing.T) {
			var text strings.Builder
			for k, val := range v.Attrs {
				text.WriteString(k + "=" + val + "\n")
			}
			text.WriteString("scope=http://a.test/api/\n")
			p, options, warnings := guard.ParseAttributes(text.String())
			got := map[string]string{}
			for _, line := range strings.Split(strings.TrimSpace(options), "\n") {
				k, val, _ := strings.Cut(line, "=")
				got[k] = val
			}
			for k, want := range v.Options {
				if got[k] != want {
					t.Errorf("%s = %q, want %q", k, got[k], want)
				}
			}
			var named []string
			for _, w := range warnings {
				attr, _, _ := strings.Cut(w, ":")
				named = append(named, attr)
			}
			slices.Sort(named)
			want := slices.Clone(v.Warn)
			slices.Sort(want)
			if !slices.Equal(named, want) {
				t.Errorf("warnings %q, want them for %q", warnings, v.Warn)
			}
			if got["scope"] != "http://a.test/api/" {
				t.Errorf("scope = %q", got["scope"])
			}
			if _, err := guard.New(p, store.NewMemory()); err != nil {
				t.Errorf("the policy does not validate: %v", err)
			}
		})
	}
}

func TestParseAttributesIgnoresWhatIsNotItsOwn(t *testing.T) {
	_, _, warnings := guard.ParseAttributes("wasm=/x.wasm\nappTheme=dark\nscope=http://a.test/\n")
	if len(warnings) != 0 {
		t.Fatalf("warnings %q", warnings)
	}
}

func FuzzParseAttributes(f *testing.F) {
	f.Add("ttlMs=3000\nscope=http://a.test/api/\nstale=on\nstaleMaxMs=1000")
	f.Fuzz(func(t *testing.T, text string) {
		if strings.Contains(text, "scope=") {
			t.Skip("scope lines come resolved from the shim's URL parser")
		}
		p, _, _ := guard.ParseAttributes(text + "\nscope=http://a.test/")
		if _, err := guard.New(p, store.NewMemory()); err != nil {
			t.Fatalf("accepted attributes must make a valid policy: %v", err)
		}
	})
}

// Idempotency-Key is not CORS-safelisted: keys go to the page's own origin
// unless the app opts in for the other origins of its scope. Only mutations
// carry one, and Begin's Send says so (the shim reads nothing else).
func TestIdempotencyKeysStayOnThePagesOrigin(t *testing.T) {
	for _, tc := range []struct {
		attrs  string
		method string
		url    string
		want   bool
	}{
		{"", "POST", "https://app.test/api/orders", true},
		{"", "PUT", "https://app.test/api/orders/1", true},
		{"", "PATCH", "https://app.test/api/orders/1", true},
		{"", "DELETE", "https://app.test/api/orders/1", true},
		{"", "GET", "https://app.test/api/orders", false},
		{"", "HEAD", "https://app.test/api/orders", false},
		{"", "OPTIONS", "https://app.test/api/orders", false},
		{"", "post", "https://app.test/api/orders", false}, // the shim upper-cases the method, as fetch sends it
		{"", "POST", "https://api.test/orders", false},
		{"", "POST", "https://app.test.evil/api/orders", false},
		{"idempotency=cross-origin\n", "POST", "https://api.test/orders", true},
		{"idempotency=off\n", "POST", "https://app.test/api/orders", false},
	} {
		p, _, _ := guard.ParseAttributes(tc.attrs + "scope=https://app.test/api/\nscope=https://api.test/\npageOrigin=https://app.test\n")
		g, err := guard.New(p, store.NewMemory())
		if err != nil {
			t.Fatal(err)
		}
		if a := g.Begin(0, tc.method, tc.url, ""); a.Keyed != tc.want || (a.Kind != guard.Send && tc.want) {
			t.Errorf("%q %s %s: Begin %+v, want keyed %v", tc.attrs, tc.method, tc.url, a, tc.want)
		}
		if got := g.Keyed(tc.method, tc.url); got != tc.want {
			t.Errorf("%q %s %s: keys %v, want %v", tc.attrs, tc.method, tc.url, got, tc.want)
		}
	}
}
