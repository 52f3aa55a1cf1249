package ledger_test

import (
	"database/sql"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gatewaycircuit/gatewaycircuit/ledger"
)

// BenchmarkOverhead is make bench-ledger: per request, in process (no
// network), the bare handler, a first request through the ledger (a new
// key: prune, claim, run, record) and a replay (a recorded key), on a
// SQLite file and on PostgreSQL. p50 and p99 are reported in µs; the
// overhead is the difference to bare.
func BenchmarkOverhead(b *testing.B) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		_, _ = w.Write([]byte(`{"id":1}`))
	})
	for _, st := range []struct {
		name string
		open func(b *testing.B) *sql.DB
		d    ledger.Dialect
	}{
		{"sqlite", func(b *testing.B) *sql.DB {
			db, err := sql.Open("sqlite", ledger.SQLiteDSN(filepath.Join(b.TempDir(), "bench.sqlite")))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			return db
		}, ledger.SQLite},
		{"postgres", func(b *testing.B) *sql.DB { return postgresDB(b) }, ledger.Postgres},
	} {
		db := st.open(b)
		s, err := ledger.NewSQLStore(b.Context(), db, st.d)
		if err != nil {
			b.Fatal(err)
		}
		l, err := ledger.New(ledger.Options{Store: s, Principal: func(*http.Request) (string, bool) { return "ann", true }})
		if err != nil {
			b.Fatal(err)
		}
		wrapped := l.Wrap(h)
		body := `{"item":"tea","qty":1,"note":"a body of a usual size"}`
		for _, kind := range []string{"bare", "first", "replay"} {
			b.Run(st.name+"/"+kind, func(b *testing.B) {
				run := wrapped
				if kind == "bare" {
					run = h
				}
				took := make([]time.Duration, 0, b.N)
				for i := range b.N {
					key := `"k-` + st.name + "-" + strconv.Itoa(i) + `"`
					if kind == "replay" {
						key = `"replayed"`
					}
					r := httptest.NewRequest("POST", "/orders", strings.NewReader(body))
					r.Header.Set("Idempotency-Key", key)
					w := httptest.NewRecorder()
					t0 := time.Now()
					run.ServeHTTP(w, r)
					took = append(took, time.Since(t0))
					if w.Code != 201 {
						b.Fatalf("%d %s", w.Code, w.Body)
					}
				}
				slices.Sort(took)
				b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
			})
		}
	}
}
