package idempotency_test

import (
	"errors"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/policy/policyerr"
)

func TestDecide(t *testing.T) {
	p := idempotency.Policy{RetentionMs: 10_000}.WithDefaults()
	const now, lease = 100_000, 3_000
	rec := func(state, fp string, created, updated int64) *idempotency.Record {
		return &idempotency.Record{Fingerprint: fp, State: state, CreatedAt: created, UpdatedAt: updated}
	}
	for _, tc := range []struct {
		name  string
		rec   *idempotency.Record
		fp    string
		lease int64
		want  idempotency.Action
	}{
		{"no record", nil, "a", lease, idempotency.Run},
		{"done, same body", rec("done", "a", 95_000, 96_000), "a", lease, idempotency.Replay},
		{"done, other body", rec("done", "a", 95_000, 96_000), "b", lease, idempotency.Mismatch},
		{"failed, same body runs again", rec("failed", "a", 95_000, 96_000), "a", lease, idempotency.Run},
		{"failed, other body", rec("failed", "a", 95_000, 96_000), "b", lease, idempotency.Mismatch},
		{"pending, holder beating", rec("pending", "a", 95_000, 99_000), "a", lease, idempotency.InFlight},
		{"pending, heartbeat exactly a lease old", rec("pending", "a", 95_000, 97_000), "a", 3_000, idempotency.InFlight},
		{"pending, holder gone", rec("pending", "a", 95_000, 96_999), "a", lease, idempotency.InDoubt},
		{"pending, one writer (lease 0)", rec("pending", "a", 100_000, 100_000), "a", 0, idempotency.InDoubt},
		{"pending, other body", rec("pending", "a", 95_000, 97_000), "b", lease, idempotency.Mismatch},
		{"a state this version does not know", rec("archived", "a", 95_000, 96_000), "a", lease, idempotency.InDoubt},
		{"created exactly at the cutoff is kept", rec("done", "a", 90_000, 90_000), "a", lease, idempotency.Replay},
		{"past retention is none", rec("done", "a", 89_999, 99_000), "b", lease, idempotency.Run},
		{"pending past retention is none", rec("pending", "a", 89_999, 89_999), "a", 0, idempotency.Run},
	} {
		if got := p.Decide(tc.rec, tc.fp, now, tc.lease); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestOutcomes(t *testing.T) {
	for _, tc := range []struct {
		status   int
		answered bool
		want     idempotency.Outcome
		state    string
		release  bool
	}{
		{201, true, idempotency.Done, "done", false},
		{303, true, idempotency.Done, "done", false},
		{400, true, idempotency.Done, "done", false},
		{422, true, idempotency.Done, "done", false},
		{408, true, idempotency.NotDone, "", true},
		{409, true, idempotency.NotDone, "", true},
		{429, true, idempotency.NotDone, "", true},
		{503, true, idempotency.NotDone, "", true},
		{500, true, idempotency.Unknown, "failed", false},
		{502, true, idempotency.Unknown, "failed", false},
		{504, true, idempotency.Unknown, "failed", false},
		{0, false, idempotency.Unknown, "failed", false},
		{200, false, idempotency.Unknown, "failed", false}, // a handler that panicked after its header
	} {
		got := idempotency.OutcomeOf(tc.status, tc.answered)
		state, release := got.State()
		if got != tc.want || state != tc.state || release != tc.release {
			t.Errorf("%d answered=%v: %d (%q, release %v), want %d (%q, release %v)",
				tc.status, tc.answered, got, state, release, tc.want, tc.state, tc.release)
		}
	}
}

func TestPolicy(t *testing.T) {
	p := idempotency.Policy{}.WithDefaults()
	if p.RetentionMs != idempotency.DefaultRetentionMs || p.MaxEntries != idempotency.DefaultMaxEntries ||
		p.MaxBodyBytes != idempotency.DefaultMaxBodyBytes || p.Validate() != nil {
		t.Fatalf("defaults %+v: %v", p, p.Validate())
	}
	if p.Cutoff(86_400_000+5) != 5 || p.MaxBeforeClaim() != idempotency.DefaultMaxEntries-1 {
		t.Fatalf("cutoff %d, before a claim %d", p.Cutoff(86_400_000+5), p.MaxBeforeClaim())
	}
	for field, bad := range map[string]idempotency.Policy{
		"retentionMs":  {RetentionMs: -1},
		"maxEntries":   {MaxEntries: -1},
		"maxBodyBytes": {MaxBodyBytes: -1},
	} {
		err := bad.WithDefaults().Validate()
		if !errors.Is(err, idempotency.ErrInvalidPolicy) || policyerr.Field(err, idempotency.ErrInvalidPolicy) != field {
			t.Errorf("%s: %v", field, err)
		}
	}
}
