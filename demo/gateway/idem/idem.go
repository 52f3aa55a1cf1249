// Package idem is the demo gateway's side of idempotency keys: middleware
// that enforces the Idempotency-Key header (IETF httpapi draft) for unsafe
// requests, scoped by (authenticated principal, operation, key), over SQLite.
//
// For a request with a key, in this order:
//   - no principal → 401; a principal not allowed the operation → 403. This
//     comes first, so a recorded response is never replayed to someone who
//     may no longer see it;
//   - a missing or malformed key → 400 (the draft: the key is required);
//   - the key is claimed in one transaction: unknown (or expired) → recorded
//     as running, and the request runs; known with another body → 422;
//     running → 409 with Retry-After; done → the recorded response is
//     replayed (status, body, Content-Type and Location) with
//     "Idempotent-Replayed: true";
//   - the business write and the key's completion (status, headers, body)
//     commit in ONE transaction, which first checks that the claim is still
//     this request's (a fencing token): an effect exists exactly when its
//     key says done. A 5xx or an error rolls the business write back and
//     releases the key, so a retry runs again.
//
// A claim older than Options.Lease is taken to be abandoned (a crash between
// the claim and the commit) and the next request with the key takes it over;
// if the first one still finishes, its commit finds the token changed and
// rolls back. Keys are kept for Options.Retention after they were first
// claimed (default 24 h); after that the key is unknown again.
//
// Bodies are compared by the SHA-256 of idempotencykey.Canonical, the same
// canonical form the browser's ledger fingerprints: a client that
// re-serialises its JSON with other key order or whitespace is still sending
// the same body.
package idem

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver

	"github.com/gatewaycircuit/gatewaycircuit/idempotencykey"
)

// Defaults, applied in Options.withDefaults.
const (
	DefaultRetention    = 24 * time.Hour
	DefaultLease        = 30 * time.Second
	DefaultMaxBodyBytes = 1 << 20
)

// DBFile is the database's file name under the data dir.
const DBFile = "gateway.sqlite"

// PrincipalHeader and PrincipalCookie carry the demo's principal: the demo
// has no login, so the caller names itself. Values are 1-64 of [A-Za-z0-9._-].
const (
	PrincipalHeader = "X-Demo-User"
	PrincipalCookie = "demo_user"
)

// ReplayedHeader marks a replayed response.
const ReplayedHeader = "Idempotent-Replayed"

// recordedHeaders are the response headers kept with a key and replayed.
var recordedHeaders = []string{"Content-Type", "Location"}

// Options configure a Service. Zero fields take the defaults.
type Options struct {
	// Retention is how long a key is remembered after it was first
	// claimed. Default 24 h.
	Retention time.Duration
	// Lease is how long a running claim holds its key before another
	// request may take it over. Default 30 s.
	Lease time.Duration
	// MaxBodyBytes bounds a request body (413 past it). Default 1 MiB.
	MaxBodyBytes int
	// Now is the clock; default time.Now. Tests pass a fake one.
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.Retention <= 0 {
		o.Retention = DefaultRetention
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Service owns the database and serves POST /api/orders, the demo's
// business endpoint, behind the idempotency middleware.
type Service struct {
	opts   Options
	db     *sql.DB
	orders http.Handler

	mu      sync.Mutex      // guards revoked and delay
	revoked map[string]bool // principals refused every operation
	delay   time.Duration   // "slow" mode: wait before the business write

	// beforeWork, when set (by tests), runs after a claim and before the
	// business transaction: where a slow request spends its time.
	beforeWork func(key string)
}

// New opens (creating it if needed) dataDir/gateway.sqlite and its tables.
func New(dataDir string, opts Options) (*Service, error) {
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, fmt.Errorf("idem: data dir: %w", err)
	}
	// busy_timeout and immediate transactions make writers queue instead of
	// failing when several processes share the file; within this process
	// one connection serialises them, which SQLite does anyway.
	dsn := "file:" + filepath.Join(dataDir, DBFile) +
		"?_busy_timeout=10000&_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("idem: open: %w", err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("idem: schema: %w", err)
	}
	s := &Service{opts: opts.withDefaults(), db: db, revoked: map[string]bool{}}
	s.orders = s.Idempotent("POST /api/orders", s.createOrder)
	if _, err := s.Sweep(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

const schema = `
CREATE TABLE IF NOT EXISTS idempotency_keys (
	principal   TEXT NOT NULL,
	operation   TEXT NOT NULL,
	key         TEXT NOT NULL,
	fingerprint TEXT NOT NULL,
	state       TEXT NOT NULL CHECK (state IN ('running', 'done')),
	token       TEXT NOT NULL,   -- which request holds a running claim
	status      INTEGER,         -- the recorded response, once done
	headers     TEXT,
	body        BLOB,
	created_at  INTEGER NOT NULL, -- Unix ms
	updated_at  INTEGER NOT NULL,
	PRIMARY KEY (principal, operation, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idempotency_keys_created ON idempotency_keys (created_at);
CREATE TABLE IF NOT EXISTS orders (
	id              INTEGER PRIMARY KEY AUTOINCREMENT,
	principal       TEXT NOT NULL,
	item            TEXT NOT NULL,
	qty             INTEGER NOT NULL,
	idempotency_key TEXT NOT NULL,
	created_at      INTEGER NOT NULL
);`

// Close closes the database.
func (s *Service) Close() error { return s.db.Close() }

// ServeHTTP serves POST /api/orders.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.orders.ServeHTTP(w, r) }

// Request is what a business Handler sees.
type Request struct {
	Principal string
	Key       string
	Header    http.Header
	Body      []byte
}

// Response is what a business Handler answers. A Status of 500 or more (or
// an error) rolls its writes back and releases the key.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Handler does the business work of one request. It must write through tx
// only: tx also records the key, and commits only if the key is still this
// request's.
type Handler func(ctx context.Context, tx *sql.Tx, req Request) (Response, error)

// Idempotent wraps h for operation (a name for the scope, e.g.
// "POST /api/orders") with the rules in the package comment.
func (s *Service) Idempotent(operation string, h Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		principal, ok := principalOf(r)
		if !ok {
			problem(w, http.StatusUnauthorized, "no principal", "send "+PrincipalHeader+" or the "+PrincipalCookie+" cookie")
			return
		}
		if !s.allowed(principal) {
			problem(w, http.StatusForbidden, "not allowed", principal+" may not "+operation)
			return
		}
		key, err := keyOf(r)
		if err != nil {
			problem(w, http.StatusBadRequest, "bad Idempotency-Key", err.Error())
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(s.opts.MaxBodyBytes)))
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			problem(w, http.StatusRequestEntityTooLarge, "body too large", err.Error())
			return
		}
		if err != nil {
			problem(w, http.StatusBadRequest, "body unreadable", err.Error())
			return
		}
		fp, err := fingerprint(body, s.opts.MaxBodyBytes)
		if err != nil {
			problem(w, http.StatusBadRequest, "body cannot be fingerprinted", err.Error())
			return
		}
		c, err := s.claim(r.Context(), principal, operation, key, fp)
		switch {
		case err != nil:
			problem(w, http.StatusInternalServerError, "key store failed", err.Error())
		case c.reused:
			problem(w, http.StatusUnprocessableEntity, "Idempotency-Key reused", "this key was used with a different body")
		case c.running:
			w.Header().Set("Retry-After", "1")
			problem(w, http.StatusConflict, "request in progress", "a request with this key is still being processed")
		case c.replay != nil:
			c.replay.Header.Set(ReplayedHeader, "true")
			write(w, *c.replay)
		default:
			req := Request{Principal: principal, Key: key, Header: r.Header, Body: body}
			// The client may give up; the work, once claimed, is finished
			// and recorded so that its retry gets the answer.
			write(w, s.run(context.WithoutCancel(r.Context()), principal, operation, key, c.token, h, req))
		}
	})
}

// claimed is the outcome of claim: exactly one of its fields is set.
type claimed struct {
	token   string    // the key is ours: run the request
	reused  bool      // recorded with another fingerprint
	running bool      // another request holds it
	replay  *Response // done: its recorded response
}

// claim decides, in one transaction, what a request with key does.
func (s *Service) claim(ctx context.Context, principal, operation, key, fp string) (claimed, error) {
	now := s.opts.Now().UnixMilli()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return claimed{}, err
	}
	defer tx.Rollback()
	var (
		recFP, state         string
		status               sql.NullInt64
		headers              sql.NullString
		body                 []byte
		createdAt, updatedAt int64
	)
	err = tx.QueryRowContext(ctx, `SELECT fingerprint, state, status, headers, body, created_at, updated_at
		FROM idempotency_keys WHERE principal = ? AND operation = ? AND key = ?`, principal, operation, key).
		Scan(&recFP, &state, &status, &headers, &body, &createdAt, &updatedAt)
	found := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return claimed{}, err
	}
	if found && now >= createdAt+s.opts.Retention.Milliseconds() {
		found = false // expired: the key is unknown again
	}
	token := newToken()
	switch {
	case !found:
		_, err = tx.ExecContext(ctx, `INSERT INTO idempotency_keys
			(principal, operation, key, fingerprint, state, token, created_at, updated_at)
			VALUES (?, ?, ?, ?, 'running', ?, ?, ?)
			ON CONFLICT (principal, operation, key) DO UPDATE SET
			fingerprint = excluded.fingerprint, state = 'running', token = excluded.token,
			status = NULL, headers = NULL, body = NULL,
			created_at = excluded.created_at, updated_at = excluded.updated_at`,
			principal, operation, key, fp, token, now, now)
	case recFP != fp:
		return claimed{reused: true}, nil
	case state == "done":
		r := Response{Status: int(status.Int64), Header: http.Header{}, Body: body}
		if err := json.Unmarshal([]byte(headers.String), &r.Header); err != nil {
			return claimed{}, fmt.Errorf("recorded headers: %w", err)
		}
		return claimed{replay: &r}, nil
	case now < updatedAt+s.opts.Lease.Milliseconds():
		return claimed{running: true}, nil
	default: // an abandoned claim: take it over
		_, err = tx.ExecContext(ctx, `UPDATE idempotency_keys SET token = ?, updated_at = ?
			WHERE principal = ? AND operation = ? AND key = ?`, token, now, principal, operation, key)
	}
	if err != nil {
		return claimed{}, err
	}
	return claimed{token: token}, tx.Commit()
}

// run does the business work and records the key as done in the same
// transaction, or releases the key when the work failed.
func (s *Service) run(ctx context.Context, principal, operation, key, token string, h Handler, req Request) Response {
	if d := s.slowness(); d > 0 {
		time.Sleep(d)
	}
	if s.beforeWork != nil {
		s.beforeWork(key)
	}
	resp, err := s.commit(ctx, principal, operation, key, token, h, req)
	if errors.Is(err, errLostClaim) {
		return problemResponse(http.StatusConflict, "request in progress", "the claim on this key was taken over")
	}
	if err != nil || resp.Status >= 500 {
		if _, rerr := s.db.ExecContext(ctx, `DELETE FROM idempotency_keys
			WHERE principal = ? AND operation = ? AND key = ? AND token = ?`, principal, operation, key, token); rerr != nil && err == nil {
			err = rerr
		}
	}
	if err != nil {
		return problemResponse(http.StatusInternalServerError, "request failed", err.Error())
	}
	return resp
}

var errLostClaim = errors.New("idem: claim taken over")

func (s *Service) commit(ctx context.Context, principal, operation, key, token string, h Handler, req Request) (Response, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Response{}, err
	}
	defer tx.Rollback()
	resp, err := h(ctx, tx, req)
	if err != nil || resp.Status >= 500 {
		return resp, err
	}
	if resp.Header == nil {
		resp.Header = http.Header{}
	}
	kept := http.Header{}
	for _, name := range recordedHeaders {
		if v := resp.Header.Values(name); len(v) > 0 {
			kept[name] = v
		}
	}
	headers, err := json.Marshal(kept)
	if err != nil {
		return Response{}, err
	}
	res, err := tx.ExecContext(ctx, `UPDATE idempotency_keys
		SET state = 'done', status = ?, headers = ?, body = ?, updated_at = ?
		WHERE principal = ? AND operation = ? AND key = ? AND token = ? AND state = 'running'`,
		resp.Status, string(headers), resp.Body, s.opts.Now().UnixMilli(), principal, operation, key, token)
	if err != nil {
		return Response{}, err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return Response{}, errLostClaim
	}
	return resp, tx.Commit()
}

// Sweep deletes the keys past their retention and reports how many.
// New runs it once; a long-running server may run it periodically.
func (s *Service) Sweep() (int64, error) {
	cutoff := s.opts.Now().Add(-s.opts.Retention).UnixMilli()
	res, err := s.db.Exec(`DELETE FROM idempotency_keys WHERE created_at <= ?`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("idem: sweep: %w", err)
	}
	return res.RowsAffected()
}

// Revoke refuses every operation to principal from now on, including the
// replay of its recorded responses (403). Allow undoes it.
func (s *Service) Revoke(principal string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.revoked[principal] = true
}

// Allow lets principal in again.
func (s *Service) Allow(principal string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.revoked, principal)
}

func (s *Service) allowed(principal string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.revoked[principal]
}

// SetDelay makes every claimed request wait d before its business write:
// the demo's "slow server", for client timeouts and 409s.
func (s *Service) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

func (s *Service) slowness() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.delay
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

func keyOf(r *http.Request) (string, error) {
	values := r.Header.Values(idempotencykey.Header)
	switch len(values) {
	case 0:
		return "", errors.New("this operation requires an " + idempotencykey.Header + " header")
	case 1:
		return idempotencykey.ParseHeader(values[0])
	}
	return "", errors.New("more than one " + idempotencykey.Header + " header")
}

// fingerprint is the SHA-256 of the canonical body (see idempotencykey.Canonical).
func fingerprint(body []byte, maxBytes int) (string, error) {
	canon, isJSON, err := idempotencykey.Canonical(body, idempotencykey.Limits{MaxBytes: maxBytes})
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if isJSON {
		h.Write([]byte("j:"))
	} else {
		h.Write([]byte("b:"))
	}
	h.Write(canon)
	return hex.EncodeToString(h.Sum(nil)), nil
}

func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

func write(w http.ResponseWriter, r Response) {
	for name, values := range r.Header {
		w.Header()[name] = values
	}
	w.WriteHeader(r.Status)
	_, _ = w.Write(r.Body)
}

func problemResponse(status int, title, detail string) Response {
	body, _ := json.Marshal(map[string]any{"title": title, "status": status, "detail": detail})
	return Response{Status: status, Header: http.Header{"Content-Type": {"application/problem+json"}}, Body: body}
}

// problem answers with an RFC 9457 problem document.
func problem(w http.ResponseWriter, status int, title, detail string) {
	write(w, problemResponse(status, title, detail))
}

// jsonResponse is a Response with a JSON body.
func jsonResponse(status int, v any) Response {
	body, _ := json.Marshal(v)
	return Response{Status: status, Header: http.Header{"Content-Type": {"application/json"}}, Body: body}
}

// itoa is strconv.FormatInt for the ids in Location headers.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }
