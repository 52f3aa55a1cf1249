package ledgercore_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/ledgercore"
)

func TestParseKey(t *testing.T) {
	long := strings.Repeat("k", idempotency.MaxKeyLen)
	for _, tc := range []struct {
		value, key string
		ok         bool
	}{
		{`"order-7"`, "order-7", true},
		{` "order-7"	`, "order-7", true},
		{`order_7`, "order_7", true},
		{`  order_7 `, "order_7", true},
		{long, long, true},
		{`"` + long + `"`, long, true},
		{long + "k", "", false},
		{``, "", false},
		{`""`, "", false},
		{`"a`, "", false},
		{`a b`, "", false},
		{`a,b`, "", false},
		{`a"b`, "", false},
		{`a\b`, "", false},
		{"a\x7fb", "", false},
		{"caf\u00e9", "", false},
		{`"a", "b"`, "", false},
	} {
		key, ok := ledgercore.ParseKey(tc.value)
		if key != tc.key || ok != tc.ok {
			t.Errorf("%q: %q %v, want %q %v", tc.value, key, ok, tc.key, tc.ok)
		}
	}
}

func TestFingerprint(t *testing.T) {
	a, _ := ledgercore.Fingerprint([]byte(`{"b":1,"a":[true,null]}`), 1<<20)
	b, _ := ledgercore.Fingerprint([]byte(" {\"a\" : [true, null], \"b\": 1.0}"), 1<<20)
	c, _ := ledgercore.Fingerprint([]byte(`{"a":[null,true],"b":1}`), 1<<20)
	text, _ := ledgercore.Fingerprint([]byte(`not json`), 1<<20)
	if a != b || a == c || !strings.HasPrefix(a, "j:") || !strings.HasPrefix(text, "b:") || len(a) != 2+64 {
		t.Fatalf("%s %s %s %s", a, b, c, text)
	}
	_, err := ledgercore.Fingerprint([]byte(`{"a":1}`), 4)
	if p := ledgercore.FingerprintProblem(err); !errors.Is(err, idempotency.ErrTooLarge) || p.Status != 413 || p.Code != "body_too_large" {
		t.Fatalf("too large: %v → %+v", err, p)
	}
	_, err = ledgercore.Fingerprint([]byte(strings.Repeat("[", 100)+strings.Repeat("]", 100)), 1<<20)
	if p := ledgercore.FingerprintProblem(err); err == nil || p.Status != 400 || p.Code != "body_not_fingerprintable" {
		t.Fatalf("too deep: %v → %+v", err, p)
	}
}

func TestProblemBody(t *testing.T) {
	for _, tc := range []struct {
		p    ledgercore.Problem
		want string
	}{
		{ledgercore.ProblemKeyReused, `{"error":"idempotency_key_reused","message":"the key was used with another body"}`},
		{ledgercore.UnavailableProblem(errors.New(`disk "full" <now>`)), `{"error":"ledger_unavailable","message":"disk \"full\" \u003cnow\u003e"}`},
	} {
		if got := string(tc.p.Body()); got != tc.want {
			t.Errorf("%s, want %s", got, tc.want)
		}
	}
	if ledgercore.ProblemInDoubt.Status != 409 || ledgercore.ProblemInFlight.Status != 409 || ledgercore.ProblemKeyReused.Status != 422 {
		t.Fatal("the refusals' statuses changed")
	}
}

func TestFlights(t *testing.T) {
	var fs ledgercore.Flights[string]
	id := ledgercore.ID{Principal: "ann", Operation: "POST /orders", Key: "k"}
	if f, mismatch := fs.Join(id, "a"); f != nil || mismatch {
		t.Fatal("a flight before any started")
	}
	f := fs.Start(id, "a")
	if _, mismatch := fs.Join(id, "b"); !mismatch {
		t.Fatal("another body joined")
	}
	other := ledgercore.ID{Principal: "bob", Operation: "POST /orders", Key: "k"}
	if g, _ := fs.Join(other, "a"); g != nil {
		t.Fatal("another principal's key joined")
	}
	var wg sync.WaitGroup
	answers := make([]string, 5)
	for i := range answers {
		g, mismatch := fs.Join(id, "a")
		if g != f || mismatch {
			t.Fatal("the same body did not join")
		}
		wg.Add(1)
		go func() { defer wg.Done(); <-g.Done(); answers[i] = g.Answer() }()
	}
	fs.Land(id, f, "201 created")
	wg.Wait()
	for _, a := range answers {
		if a != "201 created" {
			t.Fatalf("answers %q", answers)
		}
	}
	if g, _ := fs.Join(id, "a"); g != nil {
		t.Fatal("a landed flight is still joined: the next duplicate must read the record")
	}
}
