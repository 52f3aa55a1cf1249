package idem

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"time"
)

// order is the body of POST /api/orders and, with its id, the answer.
type order struct {
	ID        int64  `json:"id,omitempty"`
	Principal string `json:"principal,omitempty"`
	Item      string `json:"item"`
	Qty       int    `json:"qty"`
}

// createOrder is the demo's business write: one row in orders.
func (s *Service) createOrder(ctx context.Context, tx *sql.Tx, req Request) (Response, error) {
	var o order
	dec := json.NewDecoder(bytes.NewReader(req.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return problemResponse(http.StatusBadRequest, "bad order", err.Error()), nil
	}
	if o.Item == "" || len(o.Item) > 200 || o.Qty < 1 || o.Qty > 1000 {
		return problemResponse(http.StatusBadRequest, "bad order", "item must be 1-200 bytes and qty 1-1000"), nil
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO orders (principal, item, qty, idempotency_key, created_at)
		VALUES (?, ?, ?, ?, ?)`, req.Principal, o.Item, o.Qty, req.Key, s.opts.Now().UnixMilli())
	if err != nil {
		return Response{}, err
	}
	if o.ID, err = res.LastInsertId(); err != nil {
		return Response{}, err
	}
	o.Principal = req.Principal
	resp := jsonResponse(http.StatusCreated, o)
	resp.Header.Set("Location", "/api/orders/"+itoa(o.ID))
	return resp, nil
}

// CountOrders counts the rows of the orders table: the ground truth of
// "exactly one effect".
func (s *Service) CountOrders() (int, error) {
	var n int
	err := s.db.QueryRow(`SELECT COUNT(*) FROM orders`).Scan(&n)
	return n, err
}

// CountHandler answers GET with {"orders": <rows in orders>, "keys": <rows
// in idempotency_keys>}, counted by query.
func (s *Service) CountHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var counts struct {
			Orders int `json:"orders"`
			Keys   int `json:"keys"`
		}
		err := s.db.QueryRowContext(r.Context(),
			`SELECT (SELECT COUNT(*) FROM orders), (SELECT COUNT(*) FROM idempotency_keys)`).
			Scan(&counts.Orders, &counts.Keys)
		if err != nil {
			problem(w, http.StatusInternalServerError, "count failed", err.Error())
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		write(w, jsonResponse(http.StatusOK, counts))
	})
}

// DelayHandler answers POST {"delayMs": n}: the slow-server switch (SetDelay).
func (s *Service) DelayHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			DelayMs int `json:"delayMs"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.DelayMs < 0 || body.DelayMs > 120_000 {
			problem(w, http.StatusBadRequest, "bad delay", `want {"delayMs": 0-120000}`)
			return
		}
		s.SetDelay(time.Duration(body.DelayMs) * time.Millisecond)
		write(w, jsonResponse(http.StatusOK, body))
	})
}

// ResetHandler answers POST by deleting every order and key, for a test's
// clean start.
func (s *Service) ResetHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := s.db.ExecContext(r.Context(), `DELETE FROM orders; DELETE FROM idempotency_keys;`); err != nil {
			problem(w, http.StatusInternalServerError, "reset failed", err.Error())
			return
		}
		s.SetDelay(0)
		w.WriteHeader(http.StatusNoContent)
	})
}

// Register mounts the service on mux:
//
//	POST /api/orders               the idempotent business endpoint
//	GET  /__admin/orders           {"orders": n, "keys": m}
//	POST /__admin/orders/delay     {"delayMs": n}
//	POST /__admin/orders/reset     delete all orders and keys
func (s *Service) Register(mux *http.ServeMux) {
	mux.Handle("POST /api/orders", s)
	mux.Handle("GET /__admin/orders", s.CountHandler())
	mux.Handle("POST /__admin/orders/delay", s.DelayHandler())
	mux.Handle("POST /__admin/orders/reset", s.ResetHandler())
}
