// Package ledger is an idempotency ledger for an ordinary Go server: net/http
// middleware that runs a mutation (POST, PUT, PATCH, DELETE) with an
// Idempotency-Key at most once per (principal, operation, key), over a SQL
// database (SQLite or PostgreSQL) that any number of server processes share.
// Its rules are package idempotency's, the same the edge gateway's ledger
// (edge/ledger) follows, with the handler in the place of the origin; this
// package is their storage (Store, SQLStore) and their transport:
//
//   - the principal comes from the app's function, before anything else: no
//     principal → the app's 401, so a recorded answer is never replayed to
//     a caller who is not authenticated;
//   - the operation is the method and route (the ServeMux pattern), or a
//     name the app gives;
//   - the key is a Structured Field string (`"order-7"`, what the browser
//     module sends) or a bare token (`order_7`) (idempotency.ParseKey);
//   - the body is compared by its canonical fingerprint (the browser
//     module's, idempotency.Fingerprint): object keys sorted, whitespace
//     ignored;
//   - the record is written (pending) before the handler runs;
//   - a duplicate that arrives while the handler runs, in this process or
//     another, is answered 409 idempotency_in_flight with Retry-After: 1 at
//     once: it neither waits nor runs, whatever the first request's answer
//     turns out to be;
//   - the same key with the same body → the recorded answer, with
//     Idempotency-Replayed: true; with another body → 422
//     idempotency_key_reused;
//   - an answer that says the request was not acted on (408, 409, 429, 503)
//     releases the key; one that leaves the effect unknown (another 5xx, a
//     panic) is recorded as failed and a retry with the same body runs the
//     handler again; any other answer is recorded and replayed;
//   - a handler that panics is answered 500 handler_failed (the panic is
//     recovered and logged, and recorded as failed): the connection is not
//     broken, so a client that re-sends a keyed request on a broken
//     connection (Go's http.Transport does) runs it once, not in a loop;
//   - a record left pending by a process that died mid-handler (its
//     heartbeat older than Options.Lease) answers 409 idempotency_in_doubt
//     until its retention ends: the handler is never run twice for it;
//   - records are kept Options.Retention and at most Options.MaxEntries per
//     principal (a finished record goes once MaxEntries newer ones exist;
//     a pending one stays until its retention ends); a record past its
//     retention or beyond the bound is ignored on read before any write
//     has pruned it.
//
// The handler's answer is buffered (it is recorded whole); a handler that
// streams is not for this middleware.
package ledger

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gatewaycircuit/gatewaycircuit/idempotency"
)

// Defaults, applied in Options.withDefaults (the bounds' defaults are
// idempotency.DefaultMaxEntries and idempotency.DefaultMaxBodyBytes).
const (
	DefaultRetention = idempotency.DefaultRetentionMs * time.Millisecond
	DefaultLease     = 10 * time.Second
)

// ErrInvalidOptions is the sentinel for Options that New refuses.
var ErrInvalidOptions = errors.New("ledger: invalid options")

// Options configure a Ledger. Store and Principal are required.
type Options struct {
	Store Store
	// Principal names the authenticated caller; ok false → Unauthorized.
	Principal func(r *http.Request) (principal string, ok bool)
	// Unauthorized answers a request without a principal. Default: 401.
	Unauthorized http.Handler
	// RequireKey answers a mutation without a key 400; by default it runs
	// unrecorded.
	RequireKey bool
	// Retention is how long a record is kept. Default 24 h.
	Retention time.Duration
	// MaxEntries bounds the records of one principal: a finished record
	// goes once MaxEntries newer ones exist (pending ones count, but stay).
	// Default 10 000.
	MaxEntries int
	// MaxBodyBytes bounds a request body (413 past it). Default 1 MiB.
	MaxBodyBytes int
	// Lease is how long a pending record stays live without a heartbeat
	// (the holder refreshes it every Lease/3); past it the holder is taken
	// to be dead and the record is in doubt. Default 10 s.
	Lease time.Duration
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// ErrorLog logs the handler's panics, with their stack. Default: the
	// log package's standard logger.
	ErrorLog *log.Logger
}

func (o Options) withDefaults() Options {
	if o.Unauthorized == nil {
		o.Unauthorized = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			writeProblem(w, idempotency.ProblemUnauthenticated)
		})
	}
	if o.Retention <= 0 {
		o.Retention = DefaultRetention
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = idempotency.DefaultMaxEntries
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = idempotency.DefaultMaxBodyBytes
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ErrorLog == nil {
		o.ErrorLog = log.Default()
	}
	return o
}

// Ledger is the middleware. One Ledger serves any number of handlers.
type Ledger struct {
	o       Options
	bounds  idempotency.Policy // o's Retention, MaxEntries and MaxBodyBytes
	leaseMs int64              // o.Lease
}

// New returns a Ledger.
func New(o Options) (*Ledger, error) {
	if o.Store == nil || o.Principal == nil {
		return nil, fmt.Errorf("%w: Store and Principal are required", ErrInvalidOptions)
	}
	o = o.withDefaults()
	return &Ledger{
		o:       o,
		bounds:  idempotency.Policy{RetentionMs: o.Retention.Milliseconds(), MaxEntries: o.MaxEntries, MaxBodyBytes: o.MaxBodyBytes},
		leaseMs: max(1, o.Lease.Milliseconds()),
	}, nil
}

// Wrap returns h behind the ledger; the operation is the request's method
// and ServeMux pattern (its path when it has none).
func (l *Ledger) Wrap(h http.Handler) http.Handler { return l.WrapNamed("", h) }

// WrapNamed is Wrap with the operation named by the app: requests with the
// same key to handlers of the same name are one action.
func (l *Ledger) WrapNamed(operation string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		default:
			h.ServeHTTP(w, r)
			return
		}
		principal, ok := l.o.Principal(r)
		if !ok || principal == "" {
			l.o.Unauthorized.ServeHTTP(w, r)
			return
		}
		values := r.Header.Values(idempotency.Header)
		if len(values) == 0 && !l.o.RequireKey {
			h.ServeHTTP(w, r)
			return
		}
		key, err := "", error(idempotency.ErrInvalidKey)
		if len(values) == 1 {
			key, err = idempotency.ParseKey(values[0])
		}
		if err != nil {
			writeProblem(w, idempotency.ProblemInvalidKey)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(l.o.MaxBodyBytes)))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				writeProblem(w, idempotency.Problem{Status: http.StatusRequestEntityTooLarge, Code: "body_too_large", Message: err.Error()})
				return
			}
			writeProblem(w, idempotency.Problem{Status: http.StatusBadRequest, Code: "body_unreadable", Message: err.Error()})
			return
		}
		fp, err := idempotency.Fingerprint(body, idempotency.Limits{MaxBytes: l.o.MaxBodyBytes})
		if err != nil {
			writeProblem(w, idempotency.FingerprintProblem(err))
			return
		}
		op := operation
		if op == "" {
			op = operationOf(r)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		l.do(w, r, idempotency.ID{Principal: principal, Operation: op, Key: key}, fp, h)
	})
}

func operationOf(r *http.Request) string {
	p := r.Pattern
	if p == "" {
		return r.Method + " " + r.URL.Path
	}
	if strings.HasPrefix(p, r.Method+" ") {
		return p
	}
	return r.Method + " " + p
}

// do runs one keyed request as Decide says: claims id and runs h, answers
// from the record, or refuses.
func (l *Ledger) do(w http.ResponseWriter, r *http.Request, id idempotency.ID, fp string, h http.Handler) {
	ctx := r.Context()
	// A lost claim is read again: the record that won it decides. Three
	// rounds bound a record that changes under every read.
	for range 3 {
		now := l.o.Now().UnixMilli()
		cutoff := l.bounds.Cutoff(now)
		// The read comes first: a replay costs one statement.
		got, err := l.o.Store.Get(ctx, id, cutoff, l.bounds.MaxEntries)
		if err != nil {
			writeProblem(w, idempotency.UnavailableProblem(err))
			return
		}
		switch l.bounds.Decide(got, fp, now, l.leaseMs) {
		case idempotency.Run:
			rec := idempotency.Record{ID: id, Fingerprint: fp, Token: newToken(), CreatedAt: now, UpdatedAt: now}
			err := l.o.Store.Prune(ctx, id.Principal, cutoff, l.bounds.MaxBeforeClaim())
			claimed := false
			if err == nil {
				claimed, err = l.o.Store.Claim(ctx, rec, cutoff)
			}
			if err != nil {
				writeProblem(w, idempotency.UnavailableProblem(err))
				return
			}
			if claimed {
				l.run(w, r, rec, h)
				return
			}
			continue // claimed by another request meanwhile: read it
		case idempotency.Mismatch:
			writeProblem(w, idempotency.ProblemKeyReused)
		case idempotency.Replay:
			answerOf(got).write(w, true)
		case idempotency.InDoubt:
			writeProblem(w, idempotency.ProblemInDoubt)
		default:
			l.inFlight(w)
		}
		return
	}
	l.inFlight(w)
}

func (l *Ledger) inFlight(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "1")
	writeProblem(w, idempotency.ProblemInFlight)
}

// run runs h for the claimed record, beating its heartbeat, and records
// the answer. The caller may go away: the answer is recorded anyway, for
// its retry. A panic in h is recovered: recorded as an unknown outcome and
// answered 500, so that the connection stays whole.
func (l *Ledger) run(w http.ResponseWriter, r *http.Request, rec idempotency.Record, h http.Handler) {
	ctx := context.WithoutCancel(r.Context())
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(max(l.o.Lease/3, time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				_ = l.o.Store.Touch(ctx, rec.ID, rec.Token, l.o.Now().UnixMilli())
			}
		}
	}()
	ans, answered := l.serve(h, r.WithContext(ctx), rec.ID.Operation)
	close(stop)
	state, release := idempotency.OutcomeOf(ans.status, answered).State()
	if release {
		_ = l.o.Store.Release(ctx, rec.ID, rec.Token)
	} else {
		rec.State, rec.Status, rec.Body, rec.UpdatedAt = state, ans.status, ans.body, l.o.Now().UnixMilli()
		hdr, _ := json.Marshal(ans.header)
		rec.Header = string(hdr)
		_ = l.o.Store.Finish(ctx, rec)
	}
	ans.write(w, false)
}

// serve runs h into a buffer. answered is false when h panicked: the
// answer is then ProblemHandlerFailed, and the panic is logged as net/http
// logs one (http.ErrAbortHandler quietly).
func (l *Ledger) serve(h http.Handler, r *http.Request, operation string) (ans answer, answered bool) {
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				l.o.ErrorLog.Printf("ledger: panic serving %s: %v\n%s", operation, v, debug.Stack())
			}
			ans, answered = problemAnswer(idempotency.ProblemHandlerFailed), false
		}
	}()
	rw := &recorder{header: http.Header{}}
	h.ServeHTTP(rw, r)
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	return answer{status: rw.status, header: kept(rw.header), body: rw.body.Bytes()}, true
}

// recorder buffers the handler's answer.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (rw *recorder) Header() http.Header { return rw.header }
func (rw *recorder) WriteHeader(status int) {
	if rw.status == 0 {
		rw.status = status
	}
}
func (rw *recorder) Write(b []byte) (int, error) {
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	return rw.body.Write(b)
}

// answer is a response, fresh or recorded.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func answerOf(r *idempotency.Record) answer {
	a := answer{status: r.Status, header: http.Header{}, body: r.Body}
	_ = json.Unmarshal([]byte(r.Header), &a.header)
	return a
}

func (a answer) write(w http.ResponseWriter, replayed bool) {
	for k, v := range a.header {
		w.Header()[k] = v
	}
	if replayed {
		w.Header().Set(idempotency.HeaderReplayed, "true")
	}
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body)
}

// dropped are the response headers not recorded: they belong to one
// connection or one caller's session, not to the action's result.
var dropped = map[string]bool{
	"Set-Cookie": true, "Connection": true, "Keep-Alive": true, "Transfer-Encoding": true,
	"Date": true, "Content-Length": true, "Trailer": true, "Upgrade": true,
}

func kept(h http.Header) http.Header {
	out := http.Header{}
	for k, v := range h {
		if !dropped[http.CanonicalHeaderKey(k)] {
			out[k] = v
		}
	}
	return out
}

func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// problemAnswer is an answer of the ledger's own, as the edge sends it.
func problemAnswer(p idempotency.Problem) answer {
	return answer{status: p.Status, header: http.Header{"Content-Type": {"application/json"}, "Cache-Control": {"no-store"}}, body: p.Body()}
}

func writeProblem(w http.ResponseWriter, p idempotency.Problem) { problemAnswer(p).write(w, false) }

// Count is the number of records of principal ("" for all).
func (l *Ledger) Count(ctx context.Context, principal string) (int, error) {
	return l.o.Store.Count(ctx, principal)
}
