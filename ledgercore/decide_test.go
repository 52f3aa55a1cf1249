package ledgercore_test

import (
	"errors"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/policyerr"
	"github.com/gatewaycircuit/gatewaycircuit/ledgercore"
)

func TestDecide(t *testing.T) {
	p := ledgercore.Policy{RetentionMs: 10_000}.WithDefaults()
	const now, lease = 100_000, 3_000
	rec := func(state, fp string, created, updated int64) *ledgercore.Record {
		return &ledgercore.Record{Fingerprint: fp, State: state, CreatedAt: created, UpdatedAt: updated}
	}
	for _, tc := range []struct {
		name  string
		rec   *ledgercore.Record
		fp    string
		lease int64
		want  ledgercore.Action
	}{
		{"no record", nil, "a", lease, ledgercore.Run},
		{"done, same body", rec("done", "a", 95_000, 96_000), "a", lease, ledgercore.Replay},
		{"done, other body", rec("done", "a", 95_000, 96_000), "b", lease, ledgercore.Mismatch},
		{"failed, same body runs again", rec("failed", "a", 95_000, 96_000), "a", lease, ledgercore.Run},
		{"failed, other body", rec("failed", "a", 95_000, 96_000), "b", lease, ledgercore.Mismatch},
		{"pending, holder beating", rec("pending", "a", 95_000, 99_000), "a", lease, ledgercore.Wait},
		{"pending, heartbeat exactly a lease old", rec("pending", "a", 95_000, 97_000), "a", 3_000, ledgercore.Wait},
		{"pending, holder gone", rec("pending", "a", 95_000, 96_999), "a", lease, ledgercore.InDoubt},
		{"pending, one writer (lease 0)", rec("pending", "a", 100_000, 100_000), "a", 0, ledgercore.InDoubt},
		{"pending, other body", rec("pending", "a", 95_000, 97_000), "b", lease, ledgercore.Mismatch},
		{"a state this version does not know", rec("archived", "a", 95_000, 96_000), "a", lease, ledgercore.InDoubt},
		{"created exactly at the cutoff is kept", rec("done", "a", 90_000, 90_000), "a", lease, ledgercore.Replay},
		{"past retention is none", rec("done", "a", 89_999, 99_000), "b", lease, ledgercore.Run},
		{"pending past retention is none", rec("pending", "a", 89_999, 89_999), "a", 0, ledgercore.Run},
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
		want     ledgercore.Outcome
		state    string
		release  bool
	}{
		{201, true, ledgercore.Done, "done", false},
		{303, true, ledgercore.Done, "done", false},
		{400, true, ledgercore.Done, "done", false},
		{422, true, ledgercore.Done, "done", false},
		{408, true, ledgercore.NotDone, "", true},
		{409, true, ledgercore.NotDone, "", true},
		{429, true, ledgercore.NotDone, "", true},
		{503, true, ledgercore.NotDone, "", true},
		{500, true, ledgercore.Unknown, "failed", false},
		{502, true, ledgercore.Unknown, "failed", false},
		{504, true, ledgercore.Unknown, "failed", false},
		{0, false, ledgercore.Unknown, "failed", false},
		{200, false, ledgercore.Unknown, "failed", false}, // a handler that panicked after its header
	} {
		got := ledgercore.OutcomeOf(tc.status, tc.answered)
		state, release := got.State()
		if got != tc.want || state != tc.state || release != tc.release {
			t.Errorf("%d answered=%v: %d (%q, release %v), want %d (%q, release %v)",
				tc.status, tc.answered, got, state, release, tc.want, tc.state, tc.release)
		}
	}
}

func TestPolicy(t *testing.T) {
	p := ledgercore.Policy{}.WithDefaults()
	if p.RetentionMs != ledgercore.DefaultRetentionMs || p.MaxEntries != ledgercore.DefaultMaxEntries ||
		p.MaxBodyBytes != ledgercore.DefaultMaxBodyBytes || p.Validate() != nil {
		t.Fatalf("defaults %+v: %v", p, p.Validate())
	}
	if p.Cutoff(86_400_000+5) != 5 || p.MaxBeforeClaim() != ledgercore.DefaultMaxEntries-1 {
		t.Fatalf("cutoff %d, before a claim %d", p.Cutoff(86_400_000+5), p.MaxBeforeClaim())
	}
	for field, bad := range map[string]ledgercore.Policy{
		"retentionMs":  {RetentionMs: -1},
		"maxEntries":   {MaxEntries: -1},
		"maxBodyBytes": {MaxBodyBytes: -1},
	} {
		err := bad.WithDefaults().Validate()
		if !errors.Is(err, ledgercore.ErrInvalidPolicy) || policyerr.Field(err, ledgercore.ErrInvalidPolicy) != field {
			t.Errorf("%s: %v", field, err)
		}
	}
}
