package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// POST /api/orders behind the ledger: a retry with the key is the recorded
// answer, not a second row.
func TestOrdersOneRowPerKey(t *testing.T) {
	o, err := openOrders(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	mux := http.NewServeMux()
	if err := o.register(mux); err != nil {
		t.Fatal(err)
	}
	post := func(key string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "/api/orders", strings.NewReader(`{"item":"tea","qty":1}`))
		r.Header.Set(PrincipalHeader, "demo")
		if key != "" {
			r.Header.Set("Idempotency-Key", key)
		}
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		return w
	}
	first, again := post(`"k"`), post(`"k"`)
	if first.Code != 201 || again.Code != 201 || again.Header().Get("Idempotency-Replayed") != "true" ||
		again.Header().Get("Location") != first.Header().Get("Location") || again.Body.String() != first.Body.String() {
		t.Fatalf("first %d %v %s\nagain %d %v %s", first.Code, first.Header(), first.Body, again.Code, again.Header(), again.Body)
	}
	if w := post(""); w.Code != 400 {
		t.Fatalf("no key: %d, want 400", w.Code)
	}
	var n int
	if err := o.db.QueryRow(`SELECT count(*) FROM orders`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("orders %d (%v), want 1", n, err)
	}
}
