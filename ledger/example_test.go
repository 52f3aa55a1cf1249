package ledger_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gatewaycircuit/gatewaycircuit/ledger"
)

// A retry with the same key and body gets the recorded answer; the handler
// ran once. Another body with the key is refused.
func ExampleLedger_Wrap() {
	db, _ := sql.Open("sqlite", "file:example?mode=memory&cache=shared")
	defer db.Close()
	store, _ := ledger.NewSQLStore(context.Background(), db, ledger.SQLite)
	idem, _ := ledger.New(ledger.Options{Store: store, Principal: func(r *http.Request) (string, bool) {
		return r.Header.Get("X-User"), true
	}})
	runs := 0
	mux := http.NewServeMux()
	mux.Handle("POST /orders", idem.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		runs++
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"order":%d}`, runs)
	})))
	for _, body := range []string{`{"item":"tea","qty":1}`, `{ "qty": 1, "item": "tea" }`, `{"item":"coffee","qty":1}`} {
		r := httptest.NewRequest("POST", "/orders", strings.NewReader(body))
		r.Header.Set("X-User", "ann")
		r.Header.Set("Idempotency-Key", `"order-7"`)
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		fmt.Println(w.Code, w.Header().Get("Idempotency-Replayed"), w.Body.String())
	}
	fmt.Println("runs:", runs)
	// Output:
	// 201  {"order":1}
	// 201 true {"order":1}
	// 422  {"error":"idempotency_key_reused","message":"the key was used with another body"}
	// runs: 1
}
