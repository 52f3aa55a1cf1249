package coalesce_test

import (
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/coalesce"
	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
	"github.com/gatewaycircuit/gatewaycircuit/policy/policyerr"
)

// step is one event on a table; "#n" names the n-th call id seen.
type step struct {
	join, complete string // join: a key; complete: "#n"
	wantLeader     bool   // of join
	wantCall       string // of join: "#n"
}

func runTable(t *testing.T, p coalesce.Policy, steps []step) *coalesce.Table {
	t.Helper()
	tb, err := coalesce.New(p)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]uint32{}
	for i, s := range steps {
		switch {
		case s.join != "":
			id, leader := tb.Join(s.join)
			if leader != s.wantLeader {
				t.Fatalf("step %d: leader = %v, want %v", i, leader, s.wantLeader)
			}
			if want, seen := calls[s.wantCall]; seen && want != id {
				t.Fatalf("step %d: joined call %d, want %s (%d)", i, id, s.wantCall, want)
			}
			calls[s.wantCall] = id
		case s.complete != "":
			tb.Complete(calls[s.complete])
		}
	}
	return tb
}

func TestTableScripts(t *testing.T) {
	tests := []struct {
		name  string
		p     coalesce.Policy
		steps []step
	}{
		{"identical GETs share one call; a new one starts after completion", coalesce.Policy{}, []step{
			{join: "a", wantLeader: true, wantCall: "#1"},
			{join: "a", wantCall: "#1"},
			{join: "b", wantLeader: true, wantCall: "#2"},
			{join: "a", wantCall: "#1"},
			{complete: "#1"},
			{join: "a", wantLeader: true, wantCall: "#3"},
			{complete: "#2"},
			{complete: "#3"},
		}},
		{"a call every caller left is completed: the same request starts afresh", coalesce.Policy{}, []step{
			{join: "a", wantLeader: true, wantCall: "#1"},
			{join: "a", wantCall: "#1"},
			{complete: "#1"},
			{join: "a", wantLeader: true, wantCall: "#2"}, // not the cancelled one
			{complete: "#1"},                              // late: changes nothing
			{join: "a", wantCall: "#2"},
			{complete: "#2"},
		}},
		{"disabled: every caller leads", coalesce.Policy{Mode: mode.Off}, []step{
			{join: "a", wantLeader: true, wantCall: "#1"},
			{join: "a", wantLeader: true, wantCall: "#2"},
			{complete: "#1"},
			{complete: "#2"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tb := runTable(t, tt.p, tt.steps); tb.InFlight() != 0 {
				t.Fatalf("%d calls left in flight", tb.InFlight())
			}
		})
	}
}

func TestFiftyParallelGETsMakeOneRequest(t *testing.T) {
	tb, _ := coalesce.New(coalesce.Policy{})
	p := tb.Policy()
	leaders := 0
	var id uint32
	for i := range 50 {
		key, _ := p.Key("GET", "https://app.test/api/users", []coalesce.Header{{"Accept", "application/json"}, {"traceparent", strings.Repeat("x", i)}})
		var leader bool
		if id, leader = tb.Join(key); leader {
			leaders++
		}
	}
	tb.Complete(id)
	if leaders != 1 || tb.InFlight() != 0 {
		t.Fatalf("leaders = %d, want 1 call answering 50 waiters", leaders)
	}
}

func TestKey(t *testing.T) {
	p := coalesce.Policy{}.WithDefaults()
	key := func(method, url string, hs ...coalesce.Header) string {
		k, ok := p.Key(method, url, hs)
		if !ok {
			return "-"
		}
		return k
	}
	u := "https://app.test/api/users?page=2"
	tests := []struct {
		name string
		a, b string
		same bool
	}{
		{"same", key("GET", u, coalesce.Header{"Accept", "application/json"}), key("GET", u, coalesce.Header{"accept", " application/json "}), true},
		{"order and case of headers do not matter",
			key("GET", u, coalesce.Header{"Accept", "a"}, coalesce.Header{"X-Tenant", "t1"}),
			key("GET", u, coalesce.Header{"x-tenant", "t1"}, coalesce.Header{"ACCEPT", "a"}), true},
		{"tracing ids do not count", key("GET", u, coalesce.Header{"traceparent", "00-1"}), key("GET", u, coalesce.Header{"traceparent", "00-2"}), true},
		{"another URL", key("GET", u), key("GET", u+"&x"), false},
		{"another method", key("GET", u), key("HEAD", u), false},
		{"a header that varies the answer", key("GET", u, coalesce.Header{"Accept-Language", "ko"}), key("GET", u, coalesce.Header{"Accept-Language", "en"}), false},
		{"an app header", key("GET", u, coalesce.Header{"X-Tenant", "t1"}), key("GET", u, coalesce.Header{"X-Tenant", "t2"}), false},
		{"two users", key("GET", u, coalesce.Header{"Authorization", "Bearer a"}), key("GET", u, coalesce.Header{"Authorization", "Bearer b"}), false},
		{"a user and nobody", key("GET", u, coalesce.Header{"Authorization", "Bearer a"}), key("GET", u), false},
		{"credentials mode", key("GET", u, coalesce.Header{":credentials", "include"}), key("GET", u, coalesce.Header{":credentials", "omit"}), false},
	}
	for _, tt := range tests {
		if (tt.a == tt.b) != tt.same {
			t.Errorf("%s: %q vs %q, same = %v", tt.name, tt.a, tt.b, !tt.same)
		}
	}
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "get"} {
		if k := key(m, u); k != "-" {
			t.Errorf("%s coalesces: %q", m, k)
		}
	}
	if k := key("GET", u, coalesce.Header{"Authorization", "Bearer s3cr3t"}, coalesce.Header{"Cookie", "sid=s3cr3t"}); strings.Contains(k, "s3cr3t") {
		t.Errorf("a credential is in the key: %q", k)
	}
}

func TestCredentialHashIsFNV1a64(t *testing.T) {
	h := fnv.New64a()
	h.Write([]byte("Bearer abc"))
	want := "#" + strconv.FormatUint(h.Sum64(), 16)
	k, _ := coalesce.Policy{}.Key("GET", "u", []coalesce.Header{{"Authorization", "Bearer abc"}})
	if !strings.HasSuffix(k, want) {
		t.Fatalf("key %q does not end in %s", k, want)
	}
}

func TestParseHeaders(t *testing.T) {
	got := coalesce.ParseHeaders("accept: application/json\r\nx-tenant:t1\n\nno colon\n: empty name\n:credentials: include\nx-empty:\n")
	want := []coalesce.Header{{"accept", "application/json"}, {"x-tenant", "t1"}, {":credentials", "include"}, {"x-empty", ""}}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
}

// FuzzKey: parsing never panics, header order never changes the key, and a
// credential never appears in it as is.
func FuzzKey(f *testing.F) {
	f.Add("https://app.test/api/x", "accept: a\nauthorization: Bearer s3cr3t-token\n:credentials: include", uint64(1))
	f.Add("", "::\n:\n\r\n", uint64(2))
	p := coalesce.Policy{}.WithDefaults()
	f.Fuzz(func(t *testing.T, url, block string, seed uint64) {
		hs := coalesce.ParseHeaders(block)
		k1, ok := p.Key("GET", url, hs)
		if !ok {
			t.Fatal("GET did not coalesce")
		}
		shuffled := append([]coalesce.Header(nil), hs...)
		rand.New(rand.NewPCG(seed, 0)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if k2, _ := p.Key("GET", url, shuffled); k2 != k1 {
			t.Fatalf("order changed the key: %q vs %q", k1, k2)
		}
		for _, h := range hs {
			if v := strings.TrimSpace(h.Value); strings.EqualFold(h.Name, "authorization") && len(v) >= 12 && !strings.Contains(url, v) && strings.Contains(k1, "authorization: "+v) {
				t.Fatalf("credential %q in key %q", v, k1)
			}
		}
	})
}

func TestPolicyValidateNamesTheField(t *testing.T) {
	for _, ignore := range [][]string{{""}, {"X-Request-Id"}} {
		_, err := coalesce.New(coalesce.Policy{Ignore: ignore})
		if got := policyerr.Field(err, coalesce.ErrInvalidPolicy); got != "ignore" {
			t.Errorf("New(Ignore: %q) err = %v, want a policy error for ignore", ignore, err)
		}
	}
}

func TestDeadlineIsNoPartOfTheKeyButOfTheFlight(t *testing.T) {
	p := coalesce.Policy{}.WithDefaults()
	plain := []coalesce.Header{{Name: "accept", Value: "application/json"}}
	own := append(plain, coalesce.Header{Name: coalesce.DeadlineHeader, Value: "false"})
	k1, _ := p.Key("GET", "https://api.test/users", plain)
	k2, _ := p.Key("GET", "https://api.test/users", own)
	if k1 != k2 {
		t.Fatalf("a call's deadline changed the request's key: %q vs %q", k1, k2)
	}
	if coalesce.FlightKey(k1, plain) != k1 || coalesce.FlightKey(k2, own) == k1 {
		t.Fatalf("FlightKey(%q) = %q, (%q) = %q: calls whose deadlines differ must not share a flight", k1, coalesce.FlightKey(k1, plain), k2, coalesce.FlightKey(k2, own))
	}
}
