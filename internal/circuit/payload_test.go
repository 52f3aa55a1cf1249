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
	PhaseVectors []struct {
		Name string  `json:"name"`
		Raw  *string `json:"raw"`
		Want struct {
			Phase         string `json:"phase"`
			Action        string `json:"action"`
			Until         int64  `json:"until"`
			HTTPStatus    int    `json:"httpStatus"`
			Strikes       int    `json:"strikes"`
			HalfOpenUntil int64  `json:"halfOpenUntil"`
		} `json:"want"`
	} `json:"phaseVectors"`
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

// restoreVector reads a vector's raw value (nil: the key is absent).
func restoreVector(f vectorFile, raw *string) (circuit.State, circuit.Action) {
	if raw == nil {
		return circuit.Restore("", false, f.NowMs, f.MaxTTLMs)
	}
	return circuit.Restore(*raw, true, f.NowMs, f.MaxTTLMs)
}

// TestRestoreVectors runs the vectors the JS reader runs too.
func TestRestoreVectors(t *testing.T) {
	f := loadVectors(t)
	for _, v := range f.Vectors {
		t.Run(v.Name, func(t *testing.T) {
			s, action := restoreVector(f, v.Raw)
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

// TestRestorePhaseVectors runs the vectors of the optional fields and the
// half-open phase, which the JS reader must run too.
func TestRestorePhaseVectors(t *testing.T) {
	f := loadVectors(t)
	if len(f.PhaseVectors) < 20 {
		t.Fatalf("only %d phase vectors", len(f.PhaseVectors))
	}
	for _, v := range f.PhaseVectors {
		t.Run(v.Name, func(t *testing.T) {
			s, action := restoreVector(f, v.Raw)
			if got := s.Phase(f.NowMs).String(); got != v.Want.Phase {
				t.Errorf("phase = %v, want %v (state %+v)", got, v.Want.Phase, s)
			}
			if action.String() != v.Want.Action {
				t.Errorf("action = %v, want %v", action, v.Want.Action)
			}
			want := circuit.State{Until: v.Want.Until, HTTPStatus: v.Want.HTTPStatus, Strikes: v.Want.Strikes, HalfOpenUntil: v.Want.HalfOpenUntil}
			if s != want {
				t.Errorf("state = %+v, want %+v", s, want)
			}
			if action == circuit.ActionRewrite {
				if again, a := circuit.Restore(s.Payload(), true, f.NowMs, f.MaxTTLMs); again != s || a != circuit.ActionKeep {
					t.Errorf("the rewritten %s reads back as %+v, %v", s.Payload(), again, a)
				}
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
	for _, s := range []circuit.State{{Until: 1, HTTPStatus: 502}, {Until: 1700000000000, HTTPStatus: 599}, {Until: -7, HTTPStatus: 100},
		{Until: 5, HTTPStatus: 503, Strikes: 3, HalfOpenUntil: 600_005}} {
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
