package main

import (
	"context"
	"database/sql"
	"log"
	"net/http"

	"github.com/gatewaycircuit/gatewaycircuit/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/ledger"
	_ "modernc.org/sqlite" // PostgreSQL: _ "github.com/jackc/pgx/v5/stdlib"
)

func main() {
	// PostgreSQL: sql.Open("pgx", "postgres://app@db/app") and ledger.Postgres.
	db, err := sql.Open("sqlite", ledger.SQLiteDSN("ledger.sqlite"))
	if err != nil {
		log.Fatal(err)
	}
	store, err := ledger.NewSQLStore(context.Background(), db, ledger.SQLite)
	if err != nil {
		log.Fatal(err)
	}
	idem, err := ledger.New(ledger.Options{Store: store, Principal: func(r *http.Request) (string, bool) {
		user, _, ok := r.BasicAuth() // your authentication; no user → 401
		return user, ok
	}})
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /orders", idem.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.Printf("order %s", r.Header.Get(idempotency.Header)) // runs once per key
		w.WriteHeader(http.StatusCreated)                        // a retry gets this answer
	})))
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", mux))
}
