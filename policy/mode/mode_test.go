package mode_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/coalesce"
	"github.com/gatewaycircuit/gatewaycircuit/internal/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/internal/probe"
	"github.com/gatewaycircuit/gatewaycircuit/policy/cooldown"
	"github.com/gatewaycircuit/gatewaycircuit/policy/emptyttl"
	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
	"github.com/gatewaycircuit/gatewaycircuit/policy/negcache"
	"github.com/gatewaycircuit/gatewaycircuit/policy/policyerr"
	"github.com/gatewaycircuit/gatewaycircuit/policy/stale"
)

func TestWordsRoundTrip(t *testing.T) {
	for _, m := range []mode.Mode{mode.Default, mode.Off, mode.On, mode.Always, mode.CrossOrigin} {
		got, ok := mode.Parse(m.String())
		if !ok || got != m {
			t.Errorf("Parse(%q) = %v, %v; want %v", m.String(), got, ok, m)
		}
	}
	for _, bad := range []string{"ON", "true", "enabled", " on"} {
		if m, ok := mode.Parse(bad); ok {
			t.Errorf("Parse(%q) = %v, want no mode (normalizing is the attribute reader's job)", bad, m)
		}
	}
}

func TestOrAndIn(t *testing.T) {
	if got := mode.Default.Or(mode.On); got != mode.On {
		t.Errorf("Default.Or(On) = %v", got)
	}
	if got := mode.Off.Or(mode.On); got != mode.Off {
		t.Errorf("Off.Or(On) = %v: a mode set stays", got)
	}
	if !mode.Always.In(mode.On, mode.Off, mode.Always) || mode.CrossOrigin.In(mode.On, mode.Off) {
		t.Error("In")
	}
}

// A policy's JSON names its mode in words, and an unknown word is an error.
func TestJSON(t *testing.T) {
	type policy struct {
		Mode mode.Mode `json:"mode"`
	}
	b, err := json.Marshal(policy{Mode: mode.CrossOrigin})
	if err != nil || string(b) != `{"mode":"cross-origin"}` {
		t.Fatalf("Marshal: %s %v", b, err)
	}
	var p policy
	if err := json.Unmarshal([]byte(`{"mode":"off"}`), &p); err != nil || p.Mode != mode.Off {
		t.Errorf("Unmarshal off: %v %v", p.Mode, err)
	}
	if err := json.Unmarshal([]byte(`{}`), &p); err != nil {
		t.Error(err)
	}
	if err := json.Unmarshal([]byte(`{"mode":"sometimes"}`), &p); !errors.Is(err, mode.ErrUnknown) {
		t.Errorf("Unmarshal sometimes: %v", err)
	}
}

func ExampleMode_Or() {
	var p struct{ Mode mode.Mode } // the zero policy
	fmt.Println(p.Mode.Or(mode.On), mode.Off.Or(mode.On))
	// Output: on off
}

// Every policy takes its own modes and refuses the others by name, and the
// zero Policy (Default) is its default.
func TestPoliciesTakeTheirModes(t *testing.T) {
	type build func(mode.Mode) error
	policies := map[string]struct {
		build build
		takes []mode.Mode
	}{
		"coalesce": {func(m mode.Mode) error { _, err := coalesce.New(coalesce.Policy{Mode: m}); return err }, []mode.Mode{mode.On, mode.Off}},
		"cooldown": {func(m mode.Mode) error { _, err := cooldown.New(cooldown.Policy{Mode: m}); return err }, []mode.Mode{mode.On, mode.Off}},
		"probe":    {func(m mode.Mode) error { _, err := probe.New(probe.Policy{Mode: m}); return err }, []mode.Mode{mode.On, mode.Off}},
		"stale":    {func(m mode.Mode) error { _, err := stale.New(stale.Policy{Mode: m}); return err }, []mode.Mode{mode.On, mode.Off}},
		"emptyttl": {func(m mode.Mode) error { _, err := emptyttl.New(emptyttl.Policy{Mode: m}); return err }, []mode.Mode{mode.On, mode.Off}},
		"negcache": {func(m mode.Mode) error { _, err := negcache.New(negcache.Policy{Mode: m}); return err }, []mode.Mode{mode.On, mode.Off, mode.Always}},
		"idempotency": {func(m mode.Mode) error {
			return idempotency.Policy{Mode: m}.WithDefaults().Validate()
		}, []mode.Mode{mode.On, mode.Off, mode.CrossOrigin}},
	}
	for name, p := range policies {
		for _, m := range []mode.Mode{mode.Default, mode.Off, mode.On, mode.Always, mode.CrossOrigin} {
			err := p.build(m)
			takes := m == mode.Default || m.In(p.takes...)
			var pe *policyerr.Error
			switch {
			case takes && err != nil:
				t.Errorf("%s refuses %v: %v", name, m, err)
			case !takes && (!errors.As(err, &pe) || pe.Field != "mode"):
				t.Errorf("%s takes %v (err %v), want a policy error naming mode", name, m, err)
			}
		}
	}
}
