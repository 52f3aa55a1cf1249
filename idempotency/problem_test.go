package idempotency_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/idempotency"
)

func TestFingerprintProblem(t *testing.T) {
	_, err := idempotency.Fingerprint([]byte(`{"a":1}`), idempotency.Limits{MaxBytes: 4})
	if p := idempotency.FingerprintProblem(err); !errors.Is(err, idempotency.ErrTooLarge) || p.Status != 413 || p.Code != "body_too_large" {
		t.Fatalf("too large: %v → %+v", err, p)
	}
	_, err = idempotency.Fingerprint([]byte(strings.Repeat("[", 100)+strings.Repeat("]", 100)), idempotency.Limits{})
	if p := idempotency.FingerprintProblem(err); err == nil || p.Status != 400 || p.Code != "body_not_fingerprintable" {
		t.Fatalf("too deep: %v → %+v", err, p)
	}
}

func TestProblemBody(t *testing.T) {
	for _, tc := range []struct {
		p    idempotency.Problem
		want string
	}{
		{idempotency.ProblemKeyReused, `{"error":"idempotency_key_reused","message":"the key was used with another body"}`},
		{idempotency.UnavailableProblem(errors.New("disk \"full\" <now>\n")), `{"error":"ledger_unavailable","message":"disk \"full\" <now>\n"}`},
	} {
		if got := string(tc.p.Body()); got != tc.want {
			t.Errorf("%s, want %s", got, tc.want)
		}
	}
	if idempotency.ProblemInDoubt.Status != 409 || idempotency.ProblemInFlight.Status != 409 || idempotency.ProblemKeyReused.Status != 422 {
		t.Fatal("the refusals' statuses changed")
	}
}
