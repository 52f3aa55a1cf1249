package ledger_test

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/ledger"
)

// Go's http.Transport re-sends a request that carries an Idempotency-Key
// when a reused connection breaks before an answer, and net/http breaks the
// connection of a handler that panics. The ledger answers a panic 500
// instead: one client.Do runs the handler once, not in a loop.
func TestPanicThroughGoClientRunsOnce(t *testing.T) {
	for _, withHeader := range []bool{false, true} {
		var runs atomic.Int64
		var logged strings.Builder
		h := server(t, stores["sqlite-memory"](t), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPut { // the warm-up: a plain answer
				w.WriteHeader(http.StatusNoContent)
				return
			}
			runs.Add(1)
			if withHeader {
				w.WriteHeader(http.StatusCreated)
				_, _ = io.WriteString(w, "half")
			}
			panic("boom")
		}), func(o *ledger.Options) { o.ErrorLog = log.New(&logged, "", 0) })
		srv := httptest.NewServer(h)
		client := &http.Client{Transport: &http.Transport{}}
		reused := false
		do := func(method, key string) *http.Response {
			req, _ := http.NewRequest(method, srv.URL+"/orders", strings.NewReader(`{"eur":10}`))
			req.Header.Set("X-User", "ann")
			if key != "" {
				req.Header.Set("Idempotency-Key", key)
			}
			req = req.WithContext(withConnReused(req.Context(), &reused))
			res, err := client.Do(req)
			if err != nil {
				t.Fatalf("%s: %v (runs %d)", method, err, runs.Load())
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			return res
		}
		if res := do(http.MethodPut, ""); res.StatusCode != http.StatusNoContent {
			t.Fatalf("warm-up: %d", res.StatusCode)
		}
		res := do(http.MethodPost, `"pay-1"`)
		if !reused {
			t.Fatal("the keyed request did not reuse the warm-up's connection")
		}
		if res.StatusCode != http.StatusInternalServerError || runs.Load() > 2 {
			t.Fatalf("status %d, runs %d; want 500 and at most 2 runs", res.StatusCode, runs.Load())
		}
		if runs.Load() != 1 {
			t.Fatalf("runs %d, want 1: the answer is a 500, not a broken connection", runs.Load())
		}
		if !strings.Contains(logged.String(), "panic serving POST /orders: boom") {
			t.Fatalf("the panic was not logged: %q", logged.String())
		}
		client.CloseIdleConnections()
		srv.Close()
	}
}

// withConnReused makes *reused report whether the request went out on a
// connection that had served one before.
func withConnReused(ctx context.Context, reused *bool) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) { *reused = info.Reused },
	})
}
