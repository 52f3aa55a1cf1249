package mode_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/mode"
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
