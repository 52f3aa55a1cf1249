//go:build js && wasm

package jsbridge_test

import (
	"errors"
	"strings"
	"syscall/js"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/internal/circuit"
	"github.com/gatewaycircuit/gatewaycircuit/internal/jsbridge"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store/storetest"
)

// makeGlobal builds, in JS, an object shaped like a page's globalThis whose
// sessionStorage behaves as body says, and makes it the one the storage
// imports reach (tools/wasm-exec.mjs reads globalThis.__storageHost) until
// the test ends. Node has no sessionStorage, so the fake follows the Web
// Storage contract: strings in, strings or null out.
func makeGlobal(t *testing.T, body string) js.Value {
	t.Helper()
	t.Cleanup(func() { js.Global().Delete("__storageHost") })
	fn := js.Global().Get("Function").New(`
		class Storage {
			constructor() { this.m = new Map(); }
			getItem(k) { k = String(k); return this.m.has(k) ? this.m.get(k) : null; }
			setItem(k, v) { this.m.set(String(k), String(v)); }
			removeItem(k) { this.m.delete(String(k)); }
		}
		const g = { Reflect };
		` + body + `
		return g;`)
	g := fn.Invoke()
	js.Global().Set("__storageHost", g)
	return g
}

// newStorage is the adapter over a fresh fake that behaves as body says.
func newStorage(t *testing.T, body string) *jsbridge.SessionStorage {
	t.Helper()
	makeGlobal(t, body)
	return jsbridge.NewSessionStorage()
}

const working = `g.sessionStorage = new Storage();`

func TestSessionStorageConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return newStorage(t, working)
	})
}

func TestSessionStorageFailures(t *testing.T) {
	tests := []struct {
		name           string
		body           string
		wantGet, wantS error
	}{
		{"getter throws (sandboxed iframe)",
			`Object.defineProperty(g, "sessionStorage", { get() { throw new DOMException("The document is sandboxed", "SecurityError"); } });`,
			store.ErrUnavailable, store.ErrUnavailable},
		{"no storage at all", ``, store.ErrUnavailable, store.ErrUnavailable},
		{"storage null (disabled)", `g.sessionStorage = null;`, store.ErrUnavailable, store.ErrUnavailable},
		{"every call throws",
			`g.sessionStorage = { getItem() { throw new Error("denied"); }, setItem() { throw new Error("denied"); }, removeItem() { throw new Error("denied"); } };`,
			store.ErrUnavailable, store.ErrUnavailable},
		{"quota exceeded on write",
			`g.sessionStorage = new Storage(); g.sessionStorage.setItem = function() { throw new DOMException("Setting the value exceeded the quota.", "QuotaExceededError"); };`,
			nil, store.ErrQuota},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStorage(t, tt.body)
			if _, _, err := s.Get("k"); !errors.Is(err, tt.wantGet) || (tt.wantGet == nil) != (err == nil) {
				t.Errorf("Get err = %v, want %v", err, tt.wantGet)
			}
			if err := s.Set("k", "v"); !errors.Is(err, tt.wantS) {
				t.Errorf("Set err = %v, want %v", err, tt.wantS)
			}
		})
	}
}

// TestBreakerOverThrowingStorage is the rule "storage that throws means
// closed, keep working" end to end through the adapter.
func TestBreakerOverThrowingStorage(t *testing.T) {
	s := newStorage(t, `Object.defineProperty(g, "sessionStorage", { get() { throw new Error("SecurityError"); } });`)
	b, err := circuit.New(circuit.Policy{Scope: []string{"http://a.test/"}}, s)
	if err != nil {
		t.Fatal(err)
	}
	now := int64(1_700_000_000_000)
	if s := b.Load(now); s.Armed(now) {
		t.Fatal("armed from unreadable storage")
	}
	b.Observe(now, circuit.Span{SentMs: now - 1, AnsweredMs: now}, 502, circuit.NoRetryAfter)
	if b.Decide(now+1, "http://a.test/x") != circuit.Block {
		t.Fatal("did not arm in memory")
	}
}

func TestBreakerPersistsThroughSessionStorage(t *testing.T) {
	g := makeGlobal(t, working)
	p := circuit.Policy{Scope: []string{"http://a.test/"}}
	b, _ := circuit.New(p, jsbridge.NewSessionStorage())
	now := int64(1_700_000_000_000)
	b.Observe(now, circuit.Span{SentMs: now - 1, AnsweredMs: now}, 503, circuit.NoRetryAfter)
	raw := g.Get("sessionStorage").Call("getItem", circuit.StorageKey)
	if raw.String() != `{"until":1700000005000,"httpStatus":503,"halfOpenUntil":1700000125000}` { // the defaults: 5 s, then half-open for 120 s
		t.Fatalf("stored %q", raw.String())
	}
	reloaded, _ := circuit.New(p, jsbridge.NewSessionStorage())
	if s := reloaded.Load(now + 10); !s.Armed(now+10) || s.HTTPStatus != 503 {
		t.Fatalf("reloaded state %+v", s)
	}
}

// A value longer than the adapter's buffer, and one with text outside
// ASCII, come back whole.
func TestSessionStorageLongAndWideValues(t *testing.T) {
	s := newStorage(t, working)
	long := strings.Repeat("0123456789abcdef", 4096) + "잠시 후 다시 시도해 주세요 ✓"
	for _, v := range []string{long, "한국어", long + long} {
		if err := s.Set("k", v); err != nil {
			t.Fatal(err)
		}
		if got, ok, err := s.Get("k"); err != nil || !ok || got != v {
			t.Fatalf("Get = %d bytes, %v, %v; want %d bytes", len(got), ok, err, len(v))
		}
	}
}
