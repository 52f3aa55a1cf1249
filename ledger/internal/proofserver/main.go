// Command proofserver is one server process of the ledger's PostgreSQL
// proof (proof_test.go): POST /charge behind the ledger, whose effect is a
// row in charges, in the same database. A body {"hold": true} makes the
// handler write its row and then never answer (the process is killed
// there); {"delayMs": n} makes it answer late, and {"status": s} answer s
// instead of 201. It prints "listening ADDR" once it serves.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/gatewaycircuit/gatewaycircuit/ledger"
)

func main() {
	dsn := flag.String("dsn", "", "PostgreSQL DSN")
	lease := flag.Duration("lease", 2*time.Second, "ledger lease")
	flag.Parse()
	db, err := sql.Open("pgx", *dsn)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS charges (id BIGSERIAL PRIMARY KEY, key TEXT NOT NULL)`); err != nil {
		log.Fatal(err)
	}
	store, err := ledger.NewSQLStore(ctx, db, ledger.Postgres)
	if err != nil {
		log.Fatal(err)
	}
	l, err := ledger.New(ledger.Options{Store: store, Lease: *lease,
		Principal: func(r *http.Request) (string, bool) { p := r.Header.Get("X-User"); return p, p != "" }})
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /charge", l.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Hold    bool `json:"hold"`
			DelayMs int  `json:"delayMs"`
			Status  int  `json:"status"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &in)
		var id int64
		if err := db.QueryRowContext(r.Context(), `INSERT INTO charges (key) VALUES ($1) RETURNING id`,
			r.Header.Get("Idempotency-Key")).Scan(&id); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		var runs int
		if err := db.QueryRowContext(r.Context(), `SELECT count(*) FROM charges WHERE key = $1`,
			r.Header.Get("Idempotency-Key")).Scan(&runs); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		if in.Hold && runs == 1 {
			select {} // killed here; a second run (a defect) answers
		}
		time.Sleep(time.Duration(in.DelayMs) * time.Millisecond)
		if in.Status == 0 {
			in.Status = http.StatusCreated
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(in.Status)
		fmt.Fprintf(w, `{"charge":%d}`, id)
	})))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("listening", ln.Addr())
	log.Fatal(http.Serve(ln, mux))
}
