package idempotency_test

import (
	"errors"
	"testing"

	idem "github.com/gatewaycircuit/gatewaycircuit/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/internal/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
)

func TestSubmit(t *testing.T) {
	l, err := idempotency.New(idempotency.Policy{}, store.NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	const now, op = int64(1_700_000_000_000), "POST http://app.test/api/orders"
	r1 := [16]byte{1}
	a, err := l.Submit(now, op, "", []byte(`{"item":"tea","qty":2}`), r1)
	if err != nil || a.Decision != idempotency.Start || a.Header != `"`+a.Key+`"` {
		t.Fatalf("first submit = %+v, %v", a, err)
	}
	// A double click: the same body (keys in another order), 30 ms later.
	b, err := l.Submit(now+30, op, "", []byte(`{ "qty": 2, "item": "tea" }`), [16]byte{2})
	if err != nil || b.Decision != idempotency.Join || b.Key != a.Key {
		t.Fatalf("double click = %+v, %v; want Join with key %s", b, err, a.Key)
	}
	// The first attempt got no answer: the retry keeps the key.
	l.Finish(now+5000, op, a.Key, 0)
	c, err := l.Submit(now+20_000, op, "", []byte(`{"item":"tea","qty":2}`), [16]byte{3})
	if err != nil || c.Decision != idempotency.Retry || c.Key != a.Key {
		t.Fatalf("retry = %+v, %v; want Retry with key %s", c, err, a.Key)
	}
	// The app's own key with another body is refused locally.
	_, err = l.Submit(now+21_000, op, a.Header, []byte(`{"item":"coffee"}`), [16]byte{4})
	if !errors.Is(err, idempotency.ErrKeyReused) {
		t.Fatalf("reused key: err = %v", err)
	}
	// A bare key from the app is taken as is, and sent verbatim; a bad one is refused.
	d, err := l.Submit(now, op, "order-42", nil, [16]byte{5})
	if err != nil || d.Key != "order-42" || d.Header != "order-42" || d.Decision != idempotency.Start {
		t.Fatalf("bare key = %+v, %v", d, err)
	}
	e, err := l.Submit(now, op, `"order-43"`, nil, [16]byte{5})
	if err != nil || e.Key != "order-43" || e.Header != `"order-43"` {
		t.Fatalf("sf-string key = %+v, %v", e, err)
	}
	if _, err := l.Submit(now, op, `"unterminated`, nil, [16]byte{6}); !errors.Is(err, idem.ErrInvalidKey) {
		t.Fatalf("bad header: err = %v", err)
	}
}
