package idempotency_test

import (
	"errors"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/internal/idempotency/ledgertest"
	"github.com/gatewaycircuit/gatewaycircuit/internal/policyerr"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
)

const (
	t0     = int64(1_700_000_000_000)
	order  = "POST https://app.test/api/orders"
	refund = "POST https://app.test/api/refunds"
	tea    = `{"item":"tea","qty":2}`
	tea2   = "{ \"qty\": 2.0,\n  \"item\": \"tea\" }" // the same body, spelled otherwise
	coffee = `{"item":"coffee","qty":1}`
)

// step is one line of a script run against a Ledger on a fake clock. The
// clock advances first, then at most one action runs, then the wants are
// checked. A key "$name" is the key that derive: "name" produced.
type step struct {
	advance int64  // ms
	op      string // operation for begin, finish and derive; default order
	begin   string // key, with body
	body    string
	finish  string // key, with status (0 = no answer)
	status  int
	derive  string // derive a key for (op, body) and name it
	reload  bool   // a page reload: a new Ledger over the same store, Load

	wantDec   idempotency.Decision // of begin
	wantErr   error                // of begin
	wantSame  string               // derive must give the key of this name
	wantState map[string]idempotency.State
	wantCount int // entries recorded, when non-zero; -1 for none
}

func run(t *testing.T, p idempotency.Policy, steps []step) {
	t.Helper()
	mem := store.NewMemory()
	l, err := idempotency.New(p, mem)
	if err != nil {
		t.Fatal(err)
	}
	now, seed := t0, byte(0)
	named := map[string]string{}
	key := func(k string) string {
		if len(k) > 0 && k[0] == '$' {
			return named[k[1:]]
		}
		return k
	}
	for i, s := range steps {
		now += s.advance
		op := s.op
		if op == "" {
			op = order
		}
		switch {
		case s.begin != "":
			fp, err := l.Fingerprint([]byte(s.body))
			if err != nil {
				t.Fatalf("step %d: Fingerprint: %v", i, err)
			}
			d, err := l.Begin(now, op, key(s.begin), fp)
			if d != s.wantDec || !errors.Is(err, s.wantErr) || (err == nil) != (s.wantErr == nil) {
				t.Fatalf("step %d: Begin(%s) = %v, %v; want %v, %v", i, s.begin, d, err, s.wantDec, s.wantErr)
			}
		case s.finish != "":
			l.Finish(now, op, key(s.finish), s.status)
		case s.derive != "":
			fp, _ := l.Fingerprint([]byte(s.body))
			seed++
			k := l.Derive(now, op, fp, [16]byte{seed})
			if s.wantSame != "" && k != named[s.wantSame] {
				t.Fatalf("step %d: Derive = %s, want the key of %s (%s)", i, k, s.wantSame, named[s.wantSame])
			}
			if s.wantSame == "" {
				for name, other := range named {
					if k == other {
						t.Fatalf("step %d: Derive gave the key of %s, want a new key", i, name)
					}
				}
			}
			named[s.derive] = k
		case s.reload:
			if l, err = idempotency.New(p, mem); err != nil {
				t.Fatal(err)
			}
			l.Load(now)
		}
		for k, want := range s.wantState {
			e, ok := l.Lookup(op, key(k))
			if want == 0 && ok {
				t.Fatalf("step %d: %s is recorded (%v), want it gone", i, k, e.State)
			}
			if want != 0 && (!ok || e.State != want) {
				t.Fatalf("step %d: %s is %v (recorded %v), want %v", i, k, e.State, ok, want)
			}
		}
		if n := len(l.Entries()); s.wantCount != 0 && n != max(s.wantCount, 0) {
			t.Fatalf("step %d: %d entries, want %d", i, n, max(s.wantCount, 0))
		}
	}
}

type states = map[string]idempotency.State

const (
	pending = idempotency.Pending
	done    = idempotency.Done
	failed  = idempotency.Failed
	gone    = idempotency.State(0)
)

func TestLedgerScripts(t *testing.T) {
	small := idempotency.Policy{MaxEntries: 2}
	tests := []struct {
		name  string
		p     idempotency.Policy
		steps []step
	}{
		{"a new key starts pending, is done on 201, and a resend is a retry the gateway replays", idempotency.Policy{}, []step{
			{begin: "k1", body: tea, wantDec: idempotency.Start, wantState: states{"k1": pending}},
			{advance: 80, finish: "k1", status: 201, wantState: states{"k1": done}},
			{begin: "k1", body: tea, wantDec: idempotency.Retry, wantState: states{"k1": pending}},
		}},
		{"identical submissions while one is in flight join it", idempotency.Policy{}, []step{
			{begin: "k1", body: tea, wantDec: idempotency.Start},
			{advance: 10, begin: "k1", body: tea, wantDec: idempotency.Join},
			{advance: 10, begin: "k1", body: tea2, wantDec: idempotency.Join},
			{finish: "k1", status: 200, wantState: states{"k1": done}, wantCount: 1},
		}},
		{"the same key with another body is refused locally, in any state", idempotency.Policy{}, []step{
			{begin: "k1", body: tea, wantDec: idempotency.Start},
			{begin: "k1", body: coffee, wantErr: idempotency.ErrKeyReused, wantState: states{"k1": pending}},
			{finish: "k1", status: 201},
			{begin: "k1", body: coffee, wantErr: idempotency.ErrKeyReused, wantState: states{"k1": done}},
			{begin: "k1", body: "item=coffee", wantErr: idempotency.ErrKeyReused},
			{op: refund, begin: "k1", body: coffee, wantDec: idempotency.Start}, // keys are per operation
		}},
		{"a failed or unanswered attempt stays recorded and its retry reuses the key", idempotency.Policy{}, []step{
			{derive: "a", body: tea},
			{begin: "$a", body: tea, wantDec: idempotency.Start},
			{advance: 30_000, finish: "$a", status: 0, wantState: states{"$a": failed}}, // client timeout
			{advance: 60_000, derive: "retry", body: tea2, wantSame: "a"},
			{begin: "$a", body: tea, wantDec: idempotency.Retry, wantState: states{"$a": pending}},
			{finish: "$a", status: 503, wantState: states{"$a": failed}},
			{begin: "$a", body: tea, wantDec: idempotency.Retry},
			{finish: "$a", status: 201, wantState: states{"$a": done}, wantCount: 1},
		}},
		{"408, 409 and 429 mean not yet; other 4xx are final", idempotency.Policy{}, []step{
			{begin: "k1", body: tea, wantDec: idempotency.Start},
			{finish: "k1", status: 409, wantState: states{"k1": failed}},
			{begin: "k1", body: tea, wantDec: idempotency.Retry},
			{finish: "k1", status: 429, wantState: states{"k1": failed}},
			{begin: "k1", body: tea, wantDec: idempotency.Retry},
			{finish: "k1", status: 408, wantState: states{"k1": failed}},
			{begin: "k1", body: tea, wantDec: idempotency.Retry},
			{finish: "k1", status: 400, wantState: states{"k1": done}},
		}},
		{"a reload mid-request keeps the key: restored as failed, the retry reuses it", idempotency.Policy{}, []step{
			{derive: "a", body: tea},
			{begin: "$a", body: tea, wantDec: idempotency.Start},
			{advance: 500, reload: true, wantState: states{"$a": failed}},
			{advance: 2_000, derive: "after F5", body: tea, wantSame: "a"},
			{begin: "$a", body: tea, wantDec: idempotency.Retry},
			{finish: "$a", status: 201, wantState: states{"$a": done}},
			{reload: true, wantState: states{"$a": done}, wantCount: 1},
		}},
		{"a double click derives one key; the same body after the window is a new action", idempotency.Policy{}, []step{
			{derive: "first", body: tea},
			{begin: "$first", body: tea, wantDec: idempotency.Start},
			{advance: 20, derive: "second", body: tea2, wantSame: "first"},
			{begin: "$first", body: tea, wantDec: idempotency.Join},
			{advance: 30, finish: "$first", status: 201},
			{advance: 9_999, derive: "late click", body: tea, wantSame: "first"},
			{advance: 1, derive: "new order", body: tea},
			{derive: "other body", body: coffee},
			{op: refund, derive: "other op", body: tea},
		}},
		{"done entries expire after the retention, then the key is free", idempotency.Policy{}, []step{
			{begin: "k1", body: tea, wantDec: idempotency.Start},
			{finish: "k1", status: 201},
			{advance: idempotency.DefaultDoneRetentionMs - 1, wantState: states{"k1": done}},
			{advance: 1, begin: "k2", body: tea, wantDec: idempotency.Start, wantState: states{"k1": gone}},
			{begin: "k1", body: coffee, wantDec: idempotency.Start},
		}},
		{"unresolved entries expire after the key retention", idempotency.Policy{}, []step{
			{derive: "a", body: tea},
			{begin: "$a", body: tea, wantDec: idempotency.Start},
			{finish: "$a", status: 0},
			{advance: idempotency.DefaultKeyRetentionMs - 1, derive: "b", body: tea, wantSame: "a"},
			{advance: 1, derive: "c", body: tea},
			{reload: true, wantCount: -1},
		}},
		{"a full ledger says so, then makes room from done entries past their window", small, []step{
			{begin: "k1", body: tea, wantDec: idempotency.Start},
			{begin: "k2", body: coffee, wantDec: idempotency.Start},
			{begin: "k3", body: tea, wantErr: idempotency.ErrLedgerFull, wantState: states{"k3": gone}},
			{finish: "k1", status: 201},
			{advance: 9_999, begin: "k3", body: tea, wantErr: idempotency.ErrLedgerFull}, // k1 may still be double-clicked
			{advance: 1, begin: "k3", body: tea, wantDec: idempotency.Start, wantState: states{"k1": gone, "k2": pending, "k3": pending}},
		}},
		{"pending and failed entries are never evicted", small, []step{
			{begin: "k1", body: tea, wantDec: idempotency.Start},
			{begin: "k2", body: coffee, wantDec: idempotency.Start},
			{finish: "k2", status: 504},
			{advance: 3_600_000, begin: "k3", body: tea, wantErr: idempotency.ErrLedgerFull},
			{reload: true, wantState: states{"k1": failed, "k2": failed}},
			{begin: "k3", body: tea, wantErr: idempotency.ErrLedgerFull},
		}},
		{"bad input is refused before anything is recorded", idempotency.Policy{}, []step{
			{begin: "k\x01", body: tea, wantErr: idempotency.ErrInvalidKey},
			{op: "POST /x\n", begin: "k1", body: tea, wantErr: idempotency.ErrInvalidEntry},
			{begin: "é", body: tea, wantErr: idempotency.ErrInvalidKey, wantCount: -1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { run(t, tt.p, tt.steps) })
	}
}

func TestLedgerErrorsNameTheAction(t *testing.T) {
	l, _ := idempotency.New(idempotency.Policy{MaxEntries: 1}, store.NewMemory())
	_, _ = l.Begin(t0, order, "k1", "j:1")
	_, err := l.Begin(t0, order, "k1", "j:2")
	var re *idempotency.KeyReusedError
	if !errors.As(err, &re) || re.Key != "k1" || re.Operation != order {
		t.Fatalf("err = %v, want a *KeyReusedError for k1", err)
	}
	_, err = l.Begin(t0, order, "k2", "j:1")
	var fe *idempotency.FullError
	if !errors.As(err, &fe) || fe.MaxEntries != 1 {
		t.Fatalf("err = %v, want a *FullError of 1", err)
	}
}

func TestFinishUnknownOrNotPending(t *testing.T) {
	l, _ := idempotency.New(idempotency.Policy{}, store.NewMemory())
	if s := l.Finish(t0, order, "nope", 201); s != 0 {
		t.Fatalf("Finish of an unknown key = %v", s)
	}
	_, _ = l.Begin(t0, order, "k1", "j:1")
	l.Finish(t0, order, "k1", 0)
	if s := l.Finish(t0, order, "k1", 201); s != 0 {
		t.Fatalf("a second Finish changed a failed entry to %v", s)
	}
}

func TestPolicyValidateNamesTheField(t *testing.T) {
	for _, c := range []struct {
		p     idempotency.Policy
		field string
	}{
		{idempotency.Policy{MaxEntries: -1}, "maxEntries"},
		{idempotency.Policy{MaxEntries: 10_001}, "maxEntries"},
		{idempotency.Policy{DeriveWindowMs: -1}, "deriveWindowMs"},
		{idempotency.Policy{DoneRetentionMs: 5_000}, "doneRetentionMs"},
		{idempotency.Policy{KeyRetentionMs: 60_000}, "keyRetentionMs"},
		{idempotency.Policy{Limits: idempotency.Limits{MaxBytes: -1}}, "maxBodyBytes"},
		{idempotency.Policy{Limits: idempotency.Limits{MaxDepth: -1}}, "maxDepth"},
	} {
		_, err := idempotency.New(c.p, store.NewMemory())
		if policyerr.Field(err, idempotency.ErrInvalidPolicy) != c.field {
			t.Errorf("New(%+v) err = %v, want a PolicyError for %s", c.p, err, c.field)
		}
	}
}

func TestLedgerPersistsThroughMemory(t *testing.T) {
	ledgertest.Run(t, func(*testing.T) store.Store { return store.NewMemory() })
}
