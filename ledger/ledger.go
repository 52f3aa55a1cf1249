// Package ledger is an idempotency ledger for an ordinary Go server: net/http
// middleware that runs a mutation (POST, PUT, PATCH, DELETE) with an
// Idempotency-Key at most once per (principal, operation, key), over a SQL
// database (SQLite or PostgreSQL) that any number of server processes share.
// Its rules are ledgercore's, the same code the edge gateway's ledger
// (edge/ledger) runs, with the handler in the place of the origin; this
// package is their storage (Store, SQLStore) and their transport:
//
//   - the principal comes from the app's function, before anything else: no
//     principal → the app's 401, so a recorded answer is never replayed to
//     a caller who is not authenticated;
//   - the operation is the method and route (the ServeMux pattern), or a
//     name the app gives;
//   - the key is a Structured Field string (`"order-7"`, what the browser
//     module sends) or a bare token (`order_7`);
//   - the body is compared by its canonical JSON fingerprint (the browser
//     module's): object keys sorted, whitespace ignored;
//   - the record is written (pending) before the handler runs;
//   - duplicates that arrive while it runs wait for it and share its answer;
//     past Options.WaitLimit they get 409 idempotency_in_flight with
//     Retry-After;
//   - the same key with the same body → the recorded answer, with
//     Idempotency-Replayed: true; with another body → 422
//     idempotency_key_reused;
//   - an answer that says the request was not acted on (408, 409, 429, 503)
//     releases the key; one that leaves the effect unknown (another 5xx, a
//     panic) is recorded as failed and a retry with the same body runs the
//     handler again; any other answer is recorded and replayed;
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
	"net/http"
	"strings"
	"time"

	"github.com/gatewaycircuit/gatewaycircuit/idempotencykey"
	"github.com/gatewaycircuit/gatewaycircuit/ledgercore"
)

// Defaults, applied in Options.withDefaults (the bounds are ledgercore's).
const (
	DefaultRetention    = ledgercore.DefaultRetentionMs * time.Millisecond
	DefaultMaxEntries   = ledgercore.DefaultMaxEntries
	DefaultMaxBodyBytes = ledgercore.DefaultMaxBodyBytes
	DefaultWaitLimit    = 10 * time.Second
	DefaultLease        = 10 * time.Second
)

// HeaderReplayed marks an answer that was recorded earlier (or shared with
// the request in flight), not produced for this request.
const HeaderReplayed = ledgercore.HeaderReplayed

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
	// WaitLimit is how long a duplicate waits for the request in flight
	// before it is answered 409 with Retry-After. Default 10 s.
	WaitLimit time.Duration
	// Lease is how long a pending record stays live without a heartbeat
	// (the holder refreshes it every Lease/3); past it the holder is taken
	// to be dead and the record is in doubt. Default 10 s.
	Lease time.Duration
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.Unauthorized == nil {
		o.Unauthorized = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			writeProblem(w, ledgercore.ProblemUnauthenticated)
		})
	}
	if o.Retention <= 0 {
		o.Retention = DefaultRetention
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.WaitLimit <= 0 {
		o.WaitLimit = DefaultWaitLimit
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Ledger is the middleware. One Ledger serves any number of handlers.
type Ledger struct {
	o       Options
	bounds  ledgercore.Policy          // o's Retention, MaxEntries and MaxBodyBytes
	leaseMs int64                      // o.Lease
	flights ledgercore.Flights[answer] // this process's requests in flight
}

// New returns a Ledger.
func New(o Options) (*Ledger, error) {
	if o.Store == nil || o.Principal == nil {
		return nil, fmt.Errorf("%w: Store and Principal are required", ErrInvalidOptions)
	}
	o = o.withDefaults()
	return &Ledger{
		o:       o,
		bounds:  ledgercore.Policy{RetentionMs: o.Retention.Milliseconds(), MaxEntries: o.MaxEntries, MaxBodyBytes: o.MaxBodyBytes},
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
		values := r.Header.Values(idempotencykey.Header)
		if len(values) == 0 && !l.o.RequireKey {
			h.ServeHTTP(w, r)
			return
		}
		key, ok := "", len(values) == 1
		if ok {
			key, ok = ledgercore.ParseKey(values[0])
		}
		if !ok {
			writeProblem(w, ledgercore.ProblemInvalidKey)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(l.o.MaxBodyBytes)))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				writeProblem(w, ledgercore.Problem{Status: http.StatusRequestEntityTooLarge, Code: "body_too_large", Message: err.Error()})
				return
			}
			writeProblem(w, ledgercore.Problem{Status: http.StatusBadRequest, Code: "body_unreadable", Message: err.Error()})
			return
		}
		fp, err := Fingerprint(body, l.o.MaxBodyBytes)
		if err != nil {
			writeProblem(w, ledgercore.FingerprintProblem(err))
			return
		}
		op := operation
		if op == "" {
			op = operationOf(r)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		l.do(w, r, ID{Principal: principal, Operation: op, Key: key}, fp, h)
	})
}

// Fingerprint is a body's identity (ledgercore.Fingerprint).
func Fingerprint(body []byte, maxBytes int) (string, error) {
	return ledgercore.Fingerprint(body, maxBytes)
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

// do runs one keyed request: joins this process's flight for id, or acts
// on the record as ledgercore decides: claims id and runs h, answers from
// the record, or waits for the process that holds it.
func (l *Ledger) do(w http.ResponseWriter, r *http.Request, id ID, fp string, h http.Handler) {
	ctx := r.Context()
	// The wait is real time (Options.Now is the records' clock): it is
	// how long this request is held.
	deadline := time.Now().Add(l.o.WaitLimit)
	for wait := 5 * time.Millisecond; ; wait = min(wait*2, 100*time.Millisecond) {
		if f, mismatch := l.flights.Join(id, fp); mismatch {
			writeProblem(w, ledgercore.ProblemKeyReused)
			return
		} else if f != nil {
			select {
			case <-f.Done():
				f.Answer().write(w, true)
			case <-time.After(time.Until(deadline)):
				l.inFlight(w)
			case <-ctx.Done():
			}
			return
		}
		now := l.o.Now().UnixMilli()
		cutoff := l.bounds.Cutoff(now)
		// The read comes first: a replay costs one statement.
		got, err := l.o.Store.Get(ctx, id, cutoff, l.bounds.MaxEntries)
		if err != nil {
			writeProblem(w, ledgercore.UnavailableProblem(err))
			return
		}
		switch l.bounds.Decide(got, fp, now, l.leaseMs) {
		case ledgercore.Run:
			rec := Record{ID: id, Fingerprint: fp, Token: newToken(), CreatedAt: now, UpdatedAt: now}
			err := l.o.Store.Prune(ctx, id.Principal, cutoff, l.bounds.MaxBeforeClaim())
			claimed := false
			if err == nil {
				claimed, err = l.o.Store.Claim(ctx, rec, cutoff)
			}
			if err != nil {
				writeProblem(w, ledgercore.UnavailableProblem(err))
				return
			}
			if claimed {
				// Duplicates in this process join it from here on;
				// until then they see the pending record and poll.
				l.run(w, r, rec, l.flights.Start(id, fp), h)
				return
			}
			continue // claimed by another request meanwhile: read it
		case ledgercore.Mismatch:
			writeProblem(w, ledgercore.ProblemKeyReused)
			return
		case ledgercore.Replay:
			answerOf(got).write(w, true)
			return
		case ledgercore.InDoubt:
			writeProblem(w, ledgercore.ProblemInDoubt)
			return
		}
		// Pending in another process: wait for its answer.
		if time.Now().Add(wait).After(deadline) {
			l.inFlight(w)
			return
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return
		}
	}
}

func (l *Ledger) inFlight(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "1")
	writeProblem(w, ledgercore.ProblemInFlight)
}

// run runs h for the claimed record, beating its heartbeat, and records
// the answer. The caller may go away: the answer is recorded anyway, for
// its retry.
func (l *Ledger) run(w http.ResponseWriter, r *http.Request, rec Record, f *ledgercore.Flight[answer], h http.Handler) {
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
	rw := &recorder{header: http.Header{}}
	var ans answer
	panicked := true
	defer func() {
		close(stop)
		state, release := ledgercore.OutcomeOf(rw.status, !panicked).State()
		if panicked {
			ans = problemAnswer(ledgercore.ProblemHandlerFailed)
		}
		if release {
			_ = l.o.Store.Release(ctx, rec.ID, rec.Token)
		} else {
			rec.State, rec.Status, rec.Body, rec.UpdatedAt = state, ans.status, ans.body, l.o.Now().UnixMilli()
			hdr, _ := json.Marshal(ans.header)
			rec.Header = string(hdr)
			_ = l.o.Store.Finish(ctx, rec)
		}
		l.flights.Land(rec.ID, f, ans)
		if !panicked {
			ans.write(w, false)
		}
	}()
	h.ServeHTTP(rw, r.WithContext(ctx))
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	ans = answer{status: rw.status, header: kept(rw.header), body: rw.body.Bytes()}
	panicked = false
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

func answerOf(r *Record) answer {
	a := answer{status: r.Status, header: http.Header{}, body: r.Body}
	_ = json.Unmarshal([]byte(r.Header), &a.header)
	return a
}

func (a answer) write(w http.ResponseWriter, replayed bool) {
	for k, v := range a.header {
		w.Header()[k] = v
	}
	if replayed {
		w.Header().Set(HeaderReplayed, "true")
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
func problemAnswer(p ledgercore.Problem) answer {
	return answer{status: p.Status, header: http.Header{"Content-Type": {"application/json"}, "Cache-Control": {"no-store"}}, body: p.Body()}
}

func writeProblem(w http.ResponseWriter, p ledgercore.Problem) { problemAnswer(p).write(w, false) }

// Count is the number of records of principal ("" for all).
func (l *Ledger) Count(ctx context.Context, principal string) (int, error) {
	return l.o.Store.Count(ctx, principal)
}
