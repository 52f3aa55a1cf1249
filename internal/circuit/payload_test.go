package circuit_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/circuit"
)

type vectorFile struct {
	NowMs    int64 `json:"nowMs"`
	MaxTTLMs int64 `json:"maxTtlMs"`
	Vectors  []struct {
		Name string  `json:"name"`
		Raw  *string `json:"raw"`
		Want struct {
			Armed      bool   `json:"armed"`
			Until      int64  `json:"until"`
			HTTPStatus int    `json:"httpStatus"`
			Action     string `json:"action"`
		} `json:"want"`
	} `json:"vectors"`
}

func loadVectors(t testing.TB) vectorFile {
	t.Helper()
	b, err := os.ReadFile("testdata/payload_vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var f vectorFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestRestoreVectors runs the vectors the JS reader runs too.
func TestRestoreVectors(t *testing.T) {
	f := loadVectors(t)
	for _, v := range f.Vectors {
		t.Run(v.Name, func(t *testing.T) {
			raw, present := "", v.Raw != nil
			if present {
				raw = *v.Raw
			}
			s, action := circuit.Restore(raw, present, f.NowMs, f.MaxTTLMs)
			if got := s.Armed(f.NowMs); got != v.Want.Armed {
				t.Errorf("armed = %v, want %v (state %+v)", got, v.Want.Armed, s)
			}
			if action.String() != v.Want.Action {
				t.Errorf("action = %v, want %v", action, v.Want.Action)
			}
			if v.Want.Armed && (s.Until != v.Want.Until || s.HTTPStatus != v.Want.HTTPStatus) {
				t.Errorf("state = %+v, want until %d status %d", s, v.Want.Until, v.Want.HTTPStatus)
			}
		})
	}
}

func TestParsePayloadErrorsAreTyped(t *testing.T) {
	_, err := circuit.ParsePayload(`{"until":"x","httpStatus":502}`)
	var pe *circuit.PayloadError
	if !errors.Is(err, circuit.ErrMalformed) || !errors.As(err, &pe) || pe.Reason == "" {
		t.Fatalf("err = %v; want a *PayloadError wrapping ErrMalformed", err)
	}
}

func TestPayloadRoundTrip(t *testing.T) {
	for _, s := range []circuit.State{{Until: 1, HTTPStatus: 502}, {Until: 1700000000000, HTTPStatus: 599}, {Until: -7, HTTPStatus: 100}} {
		got, err := circuit.ParsePayload(s.Payload())
		if err != nil || got != s {
			t.Errorf("ParsePayload(%s) = %+v, %v; want %+v", s.Payload(), got, err, s)
		}
	}
}

// reference is what the JS reader does: JSON.parse, then type checks.
// encoding/json differs from JSON.parse on duplicate keys in nested values
// only in ways that do not matter here: both keep the last top-level value.
func reference(raw string) (circuit.State, bool) {
	if len([]rune(raw)) > circuit.MaxPayloadLen || !json.Valid([]byte(raw)) {
		return circuit.State{}, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &m) != nil || m == nil {
		return circuit.State{}, false
	}
	var until, status float64
	if json.Unmarshal(m["until"], &until) != nil || json.Unmarshal(m["httpStatus"], &status) != nil {
		return circuit.State{}, false
	}
	if string(m["until"]) == "null" || string(m["httpStatus"]) == "null" {
		return circuit.State{}, false
	}
	if until != math.Trunc(until) || status != math.Trunc(status) || status < 100 || status > 599 {
		return circuit.State{}, false
	}
	return circuit.State{Until: int64(until), HTTPStatus: int(status)}, true
}

// FuzzParsePayload checks the hand-written parser against encoding/json.
func FuzzParsePayload(f *testing.F) {
	for _, v := range loadVectors(f).Vectors {
		if v.Raw != nil {
			f.Add(*v.Raw)
		}
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := circuit.ParsePayload(raw)
		want, ok := reference(raw)
		if ok != (err == nil) {
			t.Fatalf("ParsePayload(%q): err = %v, reference ok = %v", raw, err, ok)
		}
		if ok && math.Abs(float64(want.Until)) < 1<<53 && got != want {
			t.Fatalf("ParsePayload(%q) = %+v, reference %+v", raw, got, want)
		}
	})
}
