package idempotency_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	idem "github.com/gatewaycircuit/gatewaycircuit/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/internal/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/internal/idempotency/ledgertest"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
	"github.com/gatewaycircuit/gatewaycircuit/policy/policyerr"
)

const (
	t0     = int64(1_700_000_000_000)
	order  = "POST https://app.test/api/orders"
	refund = "POST https://app.test/api/refunds"
	tea    = `{"item":"tea","qty":2}`
	tea2   = "{ \"qty\": 2.0,\n  \"item\": \"tea\" }" // the same body, spelled otherwise
	coffee = `{"item":"coffee","qty":1}`
	lamp   = "PUT https://app.test/api/lamp"
	on     = `{"on":true}`
	off    = `{"on":false}`
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
		{"a reload mid-request keeps the key: the new page does not join the gone request, it retries with the key", idempotency.Policy{}, []step{
			{derive: "a", body: tea},
			{begin: "$a", body: tea, wantDec: idempotency.Start},
			{advance: 500, reload: true, wantState: states{"$a": pending}},
			{advance: 2_000, derive: "after F5", body: tea, wantSame: "a"},
			{begin: "$a", body: tea, wantDec: idempotency.Retry},
			{finish: "$a", status: 201, wantState: states{"$a": done}},
			{reload: true, wantState: states{"$a": done}, wantCount: 1},
		}},
		{"a double click in flight joins; after a definitive answer the same body is a new action", idempotency.Policy{}, []step{
			{derive: "first", body: tea},
			{begin: "$first", body: tea, wantDec: idempotency.Start},
			{advance: 20, derive: "second", body: tea2, wantSame: "first"},
			{begin: "$first", body: tea, wantDec: idempotency.Join},
			{advance: 30, finish: "$first", status: 201},
			{advance: 1, derive: "new order", body: tea},
			{derive: "other body", body: coffee},
			{op: refund, derive: "other op", body: tea},
		}},
		{"PUT on, off, on: three actions, three keys (the third must not replay the first)", idempotency.Policy{}, []step{
			{op: lamp, derive: "on", body: on},
			{op: lamp, begin: "$on", body: on, wantDec: idempotency.Start},
			{op: lamp, advance: 50, finish: "$on", status: 200},
			{op: lamp, advance: 1000, derive: "off", body: off},
			{op: lamp, begin: "$off", body: off, wantDec: idempotency.Start},
			{op: lamp, advance: 50, finish: "$off", status: 204},
			{op: lamp, advance: 1000, derive: "on again", body: on},
		}},
		{"no definitive answer (none, 409, 5xx) keeps the key; a 4xx ends the action", idempotency.Policy{}, []step{
			{derive: "a", body: tea},
			{begin: "$a", body: tea, wantDec: idempotency.Start},
			{finish: "$a", status: 409},
			{advance: 10, derive: "retry 1", body: tea, wantSame: "a"},
			{begin: "$a", body: tea, wantDec: idempotency.Retry},
			{finish: "$a", status: 502},
			{derive: "retry 2", body: tea, wantSame: "a"},
			{begin: "$a", body: tea, wantDec: idempotency.Retry},
			{finish: "$a", status: 422, wantState: states{"$a": done}},
			{derive: "fixed and sent again", body: tea},
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
		{"a full ledger evicts the oldest done entry first", small, []step{
			{begin: "k1", body: tea, wantDec: idempotency.Start},
			{begin: "k2", body: coffee, wantDec: idempotency.Start},
			{finish: "k2", status: 201},
			{begin: "k3", body: tea, wantDec: idempotency.Start, wantState: states{"k1": pending, "k2": gone, "k3": pending}},
		}},
		{"then the oldest unresolved one not in flight, then the oldest in flight: never a refusal", small, []step{
			{begin: "k1", body: tea, wantDec: idempotency.Start},
			{begin: "k2", body: coffee, wantDec: idempotency.Start},
			{finish: "k2", status: 504},
			{begin: "k3", body: tea, wantDec: idempotency.Start, wantState: states{"k1": pending, "k2": gone, "k3": pending}},
			{begin: "k4", body: tea, wantDec: idempotency.Start, wantState: states{"k1": gone, "k3": pending, "k4": pending}},
			{finish: "k1", status: 201, wantState: states{"k1": gone}}, // its answer is ignored
			{reload: true, wantCount: 2},
			{begin: "k5", body: tea, wantDec: idempotency.Start, wantState: states{"k3": gone, "k4": pending, "k5": pending}},
		}},
		{"bad input is refused before anything is recorded", idempotency.Policy{}, []step{
			{begin: "k\x01", body: tea, wantErr: idem.ErrInvalidKey},
			{op: "POST /x\n", begin: "k1", body: tea, wantErr: idempotency.ErrInvalidEntry},
			{begin: "é", body: tea, wantErr: idem.ErrInvalidKey, wantCount: -1},
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
}

// TestNeverBlocksTheApp: 64 failed actions, or 65 fast successful ones,
// filled the first ledger and every later mutation was refused for the
// tab's life. Now the next one starts, after a reload too.
func TestNeverBlocksTheApp(t *testing.T) {
	for _, status := range []int{201, 409, 0, 503} {
		mem := store.NewMemory()
		l, _ := idempotency.New(idempotency.Policy{}, mem)
		for i := range 200 {
			key := "k" + strconv.Itoa(i)
			if d, err := l.Begin(t0+int64(i), order, key, "j:1"); d != idempotency.Start || err != nil {
				t.Fatalf("status %d: action %d: Begin = %v, %v", status, i, d, err)
			}
			l.Finish(t0+int64(i), order, key, status)
		}
		if n := len(l.Entries()); n != idempotency.DefaultMaxEntries || l.Evicted() != 200-idempotency.DefaultMaxEntries {
			t.Fatalf("status %d: %d entries, %d evicted", status, n, l.Evicted())
		}
		l2, _ := idempotency.New(idempotency.Policy{}, mem)
		l2.Load(t0 + 1000)
		if d, err := l2.Begin(t0+1000, order, "after reload", "j:1"); d != idempotency.Start || err != nil {
			t.Fatalf("status %d: after reload: %v, %v", status, d, err)
		}
	}
}

// TestNoQueryStringIsStored: secrets in ?api_key= must not be kept in
// sessionStorage; the operation still tells queries apart.
func TestNoQueryStringIsStored(t *testing.T) {
	mem := store.NewMemory()
	l, _ := idempotency.New(idempotency.Policy{}, mem)
	op := "POST https://app.test/api/orders?api_key=s3cr3t&x=1#frag"
	if d, err := l.Begin(t0, op, "k1", "j:1"); d != idempotency.Start || err != nil {
		t.Fatal(d, err)
	}
	if st := l.Finish(t0+1, op, "k1", 0); st != idempotency.Failed {
		t.Fatalf("Finish with the same operation = %v", st)
	}
	raw, _, _ := mem.Get(idempotency.StorageKey)
	if strings.Contains(raw, "s3cr3t") || strings.Contains(raw, "frag") || !strings.Contains(raw, "orders?~") {
		t.Fatalf("stored %q", raw)
	}
	if e, ok := l.Lookup(op, "k1"); !ok || e.Operation != idempotency.Operation("POST", "https://app.test/api/orders?api_key=s3cr3t&x=1#frag", "") {
		t.Fatalf("Lookup = %+v, %v", e, ok)
	}
	if other := l.Derive(t0+2, "POST https://app.test/api/orders?api_key=other", "j:1", [16]byte{1}); other == "k1" {
		t.Fatal("another query is the same operation")
	}
	// An entry stored by an older version, with its query, is hashed on load.
	_ = mem.Set(idempotency.StorageKey, "f\t1700000000000\t1700000000000\tj:1\tk9\tPOST https://app.test/api/x?token=abc\n")
	l2, _ := idempotency.New(idempotency.Policy{}, mem)
	l2.Load(t0 + 3)
	if raw, _, _ := mem.Get(idempotency.StorageKey); strings.Contains(raw, "token=abc") {
		t.Fatalf("an old entry's query survived a load: %q", raw)
	}
}

// TestRedactNeverMergesTwoOperations: a caller may hash its own query
// first (the guard writes "?#<hex>", or " #<hex>" for a long URL); the
// ledger's redaction must keep such labels apart, never cut them to one.
func TestRedactNeverMergesTwoOperations(t *testing.T) {
	l, _ := idempotency.New(idempotency.Policy{}, store.NewMemory())
	ops := []string{
		"POST https://app.test/pay?#00000000000000aa", "POST https://app.test/pay?#00000000000000bb",
		"POST #00000000000000aa", "POST #00000000000000bb",
		"POST https://app.test/pay?to=a", "POST https://app.test/pay?to=b", "POST https://app.test/pay",
		"POST https://app.test/pay#x", "POST https://app.test/pay?",
	}
	seen := map[string]string{}
	for i, op := range ops {
		key := "k" + strconv.Itoa(i)
		if _, err := l.Begin(t0, op, key, "j:1"); err != nil {
			t.Fatal(err)
		}
		e, _ := l.Lookup(op, key)
		if other, dup := seen[e.Operation]; dup {
			t.Fatalf("%q and %q are both stored as %q", other, op, e.Operation)
		}
		seen[e.Operation] = op
		if again, _ := l.Lookup(e.Operation, key); again != e {
			t.Fatalf("redaction is not idempotent for %q", op)
		}
	}
}

func TestOperationAndPrincipal(t *testing.T) {
	alice := idempotency.Operation("POST", "https://app.test/api/orders", idempotency.Principal("include", "Bearer alice"))
	bob := idempotency.Operation("POST", "https://app.test/api/orders", idempotency.Principal("include", "Bearer bob"))
	anon := idempotency.Operation("POST", "https://app.test/api/orders", idempotency.Principal("same-origin", ""))
	cookies := idempotency.Operation("POST", "https://app.test/api/orders", idempotency.Principal("include", ""))
	if anon != "POST https://app.test/api/orders" || alice == bob || alice == anon || cookies == anon || strings.Contains(alice, "alice") {
		t.Fatalf("operations: %q %q %q %q", alice, bob, anon, cookies)
	}
	withQuery := idempotency.Operation("POST", "https://app.test/api/orders?k=v#f", idempotency.Principal("omit", ""))
	if strings.Contains(withQuery, "k=v") || strings.Contains(withQuery, "#f") || !strings.HasPrefix(withQuery, "POST https://app.test/api/orders?~") {
		t.Fatalf("with a query: %q", withQuery)
	}
	// Bob's submission of Alice's failed body is a new action.
	l, _ := idempotency.New(idempotency.Policy{}, store.NewMemory())
	k := l.Derive(t0, alice, "j:1", [16]byte{1})
	_, _ = l.Begin(t0, alice, k, "j:1")
	l.Finish(t0, alice, k, 0)
	if l.Derive(t0+1, bob, "j:1", [16]byte{2}) == k {
		t.Fatal("Bob got Alice's key")
	}
}

// TestInstancesInOneTabMerge: an iframe (or a page restored from the
// back/forward cache) keeps its own Ledger over the tab's storage; neither
// may lose the other's pending key, so a retry after F5 reuses it.
func TestInstancesInOneTabMerge(t *testing.T) {
	mem := store.NewMemory()
	page, _ := idempotency.New(idempotency.Policy{}, mem)
	frame, _ := idempotency.New(idempotency.Policy{}, mem)
	page.Load(t0)
	frame.Load(t0)
	_, _ = page.Begin(t0+1, order, "page-key", "j:1")
	_, _ = frame.Begin(t0+2, refund, "frame-key", "j:2")
	page.Finish(t0+3, order, "page-key", 0) // written after the frame's write: must keep it
	// The frame sees the page's action before deriving: the same body is the same action.
	if k := frame.Derive(t0+4, order, "j:1", [16]byte{9}); k != "page-key" {
		t.Fatalf("the frame derived %s, want the page's failed key", k)
	}
	_, _ = frame.Begin(t0+4, refund, "frame-key-2", "j:3") // after a read that changed nothing in storage
	after, _ := idempotency.New(idempotency.Policy{}, mem) // F5
	after.Load(t0 + 5)
	if _, ok := after.Lookup(order, "page-key"); !ok {
		t.Fatal("the page's key is lost")
	}
	if e, ok := after.Lookup(refund, "frame-key"); !ok || e.State != idempotency.Pending {
		t.Fatalf("the frame's pending key is lost: %+v %v", e, ok)
	}
	if len(after.Entries()) != 3 {
		t.Fatalf("after F5: %+v, want the page's key and the frame's two", after.Entries())
	}
	// An entry another instance still holds as pending is not joined here: retried with its key.
	if d, _ := after.Begin(t0+6, refund, "frame-key", "j:2"); d != idempotency.Retry {
		t.Fatalf("Begin on another instance's pending key = %v, want retry", d)
	}
	// The frame finishes its request after that: the newer change wins everywhere.
	frame.Finish(t0+7, refund, "frame-key", 201)
	after.Load(t0 + 8)
	if e, _ := after.Lookup(refund, "frame-key"); e.State != idempotency.Done {
		t.Fatalf("frame-key is %v after the frame's 201, want done", e.State)
	}
}

// TestForget: logout drops every key, pending ones too, and another
// instance of the tab drops its copies the next time it writes.
func TestForget(t *testing.T) {
	mem := store.NewMemory()
	page, _ := idempotency.New(idempotency.Policy{}, mem)
	frame, _ := idempotency.New(idempotency.Policy{}, mem)
	_, _ = page.Begin(t0, order, "alice-1", "j:1")
	frame.Load(t0 + 1)
	_, _ = frame.Begin(t0+2, refund, "alice-2", "j:2")
	if n := page.Forget(t0 + 10); n != 2 {
		t.Fatalf("Forget dropped %d entries, want 2", n)
	}
	if st := page.Finish(t0+11, order, "alice-1", 201); st != 0 || len(page.Entries()) != 0 {
		t.Fatalf("after Forget: Finish = %v, entries %+v", st, page.Entries())
	}
	frame.Finish(t0+12, refund, "alice-2", 0) // the frame writes: it learns of the logout
	if n := len(frame.Entries()); n != 0 {
		t.Fatalf("the frame kept %d of Alice's entries", n)
	}
	_, _ = frame.Begin(t0+13, order, "bob-1", "j:1")
	bob, _ := idempotency.New(idempotency.Policy{}, mem)
	bob.Load(t0 + 14)
	if got := bob.Entries(); len(got) != 1 || got[0].Key != "bob-1" {
		t.Fatalf("after logout and a new action: %+v", got)
	}
	if k := bob.Derive(t0+15, refund, "j:2", [16]byte{3}); k == "alice-2" {
		t.Fatal("Bob got Alice's pending key")
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
		{idempotency.Policy{DoneRetentionMs: -1}, "doneRetentionMs"},
		{idempotency.Policy{KeyRetentionMs: 60_000}, "keyRetentionMs"},
		{idempotency.Policy{Limits: idem.Limits{MaxBytes: -1}}, "maxBodyBytes"},
		{idempotency.Policy{Limits: idem.Limits{MaxDepth: -1}}, "maxDepth"},
	} {
		_, err := idempotency.New(c.p, store.NewMemory())
		if policyerr.Field(err, idempotency.ErrInvalidPolicy) != c.field {
			t.Errorf("New(%+v) err = %v, want a policyerr.Error for %s", c.p, err, c.field)
		}
	}
}

func TestLedgerPersistsThroughMemory(t *testing.T) {
	ledgertest.Run(t, func(*testing.T) store.Store { return store.NewMemory() })
}
