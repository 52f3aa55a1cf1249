package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver

	"github.com/gatewaycircuit/gatewaycircuit/ledger"
)

// OrdersFile is the orders database's file name under the data dir: the
// orders table and the idempotency ledger, in one SQLite file.
const OrdersFile = "gateway.sqlite"

// PrincipalHeader and PrincipalCookie carry the demo's principal: the demo
// has no login, so the caller names itself. Values are 1-64 of [A-Za-z0-9._-].
const (
	PrincipalHeader = "X-Demo-User"
	PrincipalCookie = "demo_user"
)

// orders is POST /api/orders, the demo's business endpoint, behind the
// idempotency ledger (package ledger): one row per action, whatever the
// browser's retries.
type orders struct {
	db    *sql.DB
	store *ledger.SQLStore

	mu    sync.Mutex
	delay time.Duration // "slow" mode: wait before the business write
}

const ordersSchema = `CREATE TABLE IF NOT EXISTS orders (
	id              INTEGER PRIMARY KEY AUTOINCREMENT,
	principal       TEXT NOT NULL,
	item            TEXT NOT NULL,
	qty             INTEGER NOT NULL,
	idempotency_key TEXT NOT NULL,
	created_at      INTEGER NOT NULL)`

// openOrders opens (creating it if needed) dataDir/gateway.sqlite.
func openOrders(dataDir string) (*orders, error) {
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, fmt.Errorf("orders: data dir: %w", err)
	}
	db, err := sql.Open("sqlite", ledger.SQLiteDSN(filepath.Join(dataDir, OrdersFile)))
	if err != nil {
		return nil, err
	}
	if _, err := db.Exec(ordersSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("orders: schema: %w", err)
	}
	store, err := ledger.NewSQLStore(context.Background(), db, ledger.SQLite)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("orders: ledger: %w", err)
	}
	return &orders{db: db, store: store}, nil
}

func (o *orders) Close() error { return o.db.Close() }

// register mounts the service on mux:
//
//	POST /api/orders               the idempotent business endpoint (a key is required)
//	GET  /__admin/orders           {"orders": n, "keys": m}
//	POST /__admin/orders/delay     {"delayMs": n}
//	POST /__admin/orders/reset     delete all orders and keys
func (o *orders) register(mux *http.ServeMux) error {
	l, err := ledger.New(ledger.Options{Store: o.store, Principal: principalOf, RequireKey: true})
	if err != nil {
		return err
	}
	mux.Handle("POST /api/orders", l.Wrap(http.HandlerFunc(o.create)))
	mux.HandleFunc("GET /__admin/orders", o.count)
	mux.HandleFunc("POST /__admin/orders/delay", o.setDelay)
	mux.HandleFunc("POST /__admin/orders/reset", o.reset)
	return nil
}

// order is the body of POST /api/orders and, with its id, the answer.
type order struct {
	ID        int64  `json:"id,omitempty"`
	Principal string `json:"principal,omitempty"`
	Item      string `json:"item"`
	Qty       int    `json:"qty"`
}

// create is the business write: one row in orders.
func (o *orders) create(w http.ResponseWriter, r *http.Request) {
	var in order
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		answerJSON(w, http.StatusBadRequest, map[string]string{"error": "bad_order", "message": err.Error()})
		return
	}
	if in.Item == "" || len(in.Item) > 200 || in.Qty < 1 || in.Qty > 1000 {
		answerJSON(w, http.StatusBadRequest, map[string]string{"error": "bad_order", "message": "item must be 1-200 bytes and qty 1-1000"})
		return
	}
	o.mu.Lock()
	d := o.delay
	o.mu.Unlock()
	time.Sleep(d)
	in.Principal, _ = principalOf(r)
	res, err := o.db.ExecContext(r.Context(), `INSERT INTO orders (principal, item, qty, idempotency_key, created_at)
		VALUES (?, ?, ?, ?, ?)`, in.Principal, in.Item, in.Qty, r.Header.Get("Idempotency-Key"), time.Now().UnixMilli())
	if err == nil {
		in.ID, err = res.LastInsertId()
	}
	if err != nil {
		answerJSON(w, http.StatusInternalServerError, map[string]string{"error": "order_failed", "message": err.Error()})
		return
	}
	w.Header().Set("Location", "/api/orders/"+strconv.FormatInt(in.ID, 10))
	answerJSON(w, http.StatusCreated, in)
}

// count answers {"orders": <rows in orders>, "keys": <ledger records>}.
func (o *orders) count(w http.ResponseWriter, r *http.Request) {
	var counts struct {
		Orders int `json:"orders"`
		Keys   int `json:"keys"`
	}
	err := o.db.QueryRowContext(r.Context(), `SELECT count(*) FROM orders`).Scan(&counts.Orders)
	if err == nil {
		counts.Keys, err = o.store.Count(r.Context(), "")
	}
	if err != nil {
		answerJSON(w, http.StatusInternalServerError, map[string]string{"error": "count_failed", "message": err.Error()})
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	answerJSON(w, http.StatusOK, counts)
}

// setDelay answers POST {"delayMs": n}: the slow-server switch.
func (o *orders) setDelay(w http.ResponseWriter, r *http.Request) {
	var body struct {
		DelayMs int `json:"delayMs"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.DelayMs < 0 || body.DelayMs > 120_000 {
		answerJSON(w, http.StatusBadRequest, map[string]string{"error": "bad_delay", "message": `want {"delayMs": 0-120000}`})
		return
	}
	o.mu.Lock()
	o.delay = time.Duration(body.DelayMs) * time.Millisecond
	o.mu.Unlock()
	answerJSON(w, http.StatusOK, body)
}

// reset deletes every order and key, for a test's clean start.
func (o *orders) reset(w http.ResponseWriter, r *http.Request) {
	if _, err := o.db.ExecContext(r.Context(), `DELETE FROM orders; DELETE FROM idempotency_ledger;`); err != nil {
		answerJSON(w, http.StatusInternalServerError, map[string]string{"error": "reset_failed", "message": err.Error()})
		return
	}
	o.mu.Lock()
	o.delay = 0
	o.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func principalOf(r *http.Request) (string, bool) {
	p := r.Header.Get(PrincipalHeader)
	if p == "" {
		if c, err := r.Cookie(PrincipalCookie); err == nil {
			p = c.Value
		}
	}
	if p == "" || len(p) > 64 {
		return "", false
	}
	for _, c := range p {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return "", false
		}
	}
	return p, true
}

func answerJSON(w http.ResponseWriter, status int, v any) {
	var b bytes.Buffer
	_ = json.NewEncoder(&b).Encode(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}
