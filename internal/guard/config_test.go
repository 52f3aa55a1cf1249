package guard_test

import (
	"errors"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/circuit"
	"github.com/gatewaycircuit/gatewaycircuit/internal/guard"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
)

func TestParseConfig(t *testing.T) {
	p, err := guard.ParseConfig("ttlMs=5000\nscope=http://a.test/\nstale=on\nstaleMaxMs=60000\ncoalesce=off\nnegativeCache=off\ncooldown=off\nprobe=off\nidempotency=off")
	if err != nil {
		t.Fatal(err)
	}
	if p.Circuit.TTLMs != 5000 || !p.Stale.Enabled || p.Stale.MaxStaleMs != 60000 || !p.Coalesce.Disabled ||
		!p.Negative.Disabled || !p.Cooldown.Disabled || !p.Probe.Disabled || !p.IdempotencyOff {
		t.Fatalf("got %+v", p)
	}
	if _, err := guard.New(p, store.NewMemory()); err != nil {
		t.Fatal(err)
	}
}

func TestParseConfigNamesTheBadSetting(t *testing.T) {
	for text, field := range map[string]string{
		"stale=yes":       "stale",
		"staleMaxMs=-1":   "staleMaxMs",
		"coalesce=1":      "coalesce",
		"nonsense=on":     "nonsense",
		"ttlMs=abc":       "ttlMs",
		"negativeCache=x": "negativeCache",
	} {
		_, err := guard.ParseConfig(text + "\nscope=http://a.test/")
		var pe *circuit.PolicyError
		if !errors.As(err, &pe) || pe.Field != field {
			t.Errorf("ParseConfig(%q) err = %v, want field %s", text, err, field)
		}
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add("ttlMs=3000\nscope=http://a.test/api/\nstale=on\nstaleMaxMs=1000")
	f.Fuzz(func(t *testing.T, text string) {
		p, err := guard.ParseConfig(text)
		if err != nil {
			return
		}
		_, _ = guard.New(p, store.NewMemory()) // must not panic, whatever it accepts
	})
}
