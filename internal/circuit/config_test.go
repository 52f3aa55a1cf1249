package circuit_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/circuit"
)

func TestParseConfig(t *testing.T) {
	p, err := circuit.ParseConfig("ttlMs=3000\nmaxTtlMs=60000\ntripStatuses=502, 504\ntripWindowMs=2000\ntripMinFailures=2\nhalfOpenMs=30000\nscope=http://a.test/api/\nscope=https://b.test/\n")
	if err != nil {
		t.Fatal(err)
	}
	want := circuit.Policy{TTLMs: 3000, MaxTTLMs: 60000, TripStatuses: []int{502, 504}, TripWindowMs: 2000, TripMinFailures: 2, HalfOpenMs: 30000, Scope: []string{"http://a.test/api/", "https://b.test/"}}
	if !reflect.DeepEqual(p, want) {
		t.Fatalf("got %+v, want %+v", p, want)
	}
	p, err = circuit.ParseConfig("scope=http://a.test/")
	if err != nil || p.TTLMs != circuit.DefaultTTLMs || p.MaxTTLMs != circuit.DefaultMaxTTLMs || len(p.TripStatuses) != 3 {
		t.Fatalf("defaults not applied: %+v, %v", p, err)
	}
	p, err = circuit.ParseConfig("tripStatuses=\nscope=http://a.test/")
	if err != nil || len(p.TripStatuses) != 0 {
		t.Fatalf("an empty trip list must mean 'never trip': %+v, %v", p, err)
	}
}

func TestParseConfigNamesTheBadKey(t *testing.T) {
	for text, field := range map[string]string{
		"ttlMs=abc\nscope=http://a.test/":            "ttlMs",
		"ttlMs=-1\nscope=http://a.test/":             "ttlMs",
		"maxTtlMs=1.5\nscope=http://a.test/":         "maxTtlMs",
		"tripStatuses=502,x\nscope=http://a.test/":   "tripStatuses",
		"tripStatuses=502,99\nscope=http://a.test/":  "tripStatuses",
		"ttl=5\nscope=http://a.test/":                "ttl",
		"scope=/api/":                                "scope",
		"":                                           "scope",
		"ttlMs=900000\nscope=http://a.test/":         "ttlMs",
		"tripWindowMs=0\nscope=http://a.test/":       "tripWindowMs",
		"tripMinFailures=0\nscope=http://a.test/":    "tripMinFailures",
		"tripMinFailures=1001\nscope=http://a.test/": "tripMinFailures",
		"halfOpenMs=600001\nscope=http://a.test/":    "halfOpenMs",
	} {
		_, err := circuit.ParseConfig(text)
		var pe *circuit.PolicyError
		if !errors.As(err, &pe) || pe.Field != field {
			t.Errorf("ParseConfig(%q) err = %v, want field %s", text, err, field)
		}
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add("ttlMs=3000\nmaxTtlMs=60000\ntripStatuses=502,504\nscope=http://a.test/api/")
	f.Add("scope=https://b.test/\nttlMs=99999999999999999999")
	f.Fuzz(func(t *testing.T, text string) {
		p, err := circuit.ParseConfig(text)
		if err != nil {
			var pe *circuit.PolicyError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *PolicyError", err)
			}
			return
		}
		if p.Validate() != nil || p.TTLMs <= 0 || p.TTLMs > p.MaxTTLMs || len(p.Scope) == 0 {
			t.Fatalf("accepted an invalid policy %+v", p)
		}
	})
}
