// Package cache is the edge's GET cache for one upstream service, kept in
// the service's Durable Object (its SQLite database). For each GET, in this
// order:
//
//  1. cooldown: after a 401/403 that the service's credential check
//     confirms (Policy.CredentialCheck), the whole service is paused; after
//     a 429, the path that was answered 429 (its query aside) is: no one
//     client's request pauses the others' paths. A copy stands in, or 503
//     with Retry-After = time left;
//  2. fresh copy: younger than its TTL (FreshTTLMs, stretched for answers
//     that keep being empty) → a hit;
//  3. per-key backoff: after a transient failure (network, 5xx) the key is
//     not asked again inside its window; a copy stands in, or 503;
//  4. coalescing: a request for a key already being fetched waits for that
//     fetch and shares its answer;
//  5. the leader fetches, and its answer settles the state for everyone.
//
// A copy that stands in is marked "stale" with its Age and the time it was
// collected, and is never older than MaxStaleMs: past that the answer is
// 503 with Retry-After, which the browser module turns into its circuit's
// TTL. Every decision is state in SQLite (copies, backoffs, the pause,
// counters), so a restart keeps it; the empty-answer streaks and the calls
// in flight live in memory. The policy packages decide (cooldown,
// negcache, stale, emptyttl); this package stores and answers.
package cache

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gatewaycircuit/gatewaycircuit/edge/origin"
	"github.com/gatewaycircuit/gatewaycircuit/edge/sqldb"
	"github.com/gatewaycircuit/gatewaycircuit/edge/stats"
	"github.com/gatewaycircuit/gatewaycircuit/policy/cooldown"
	"github.com/gatewaycircuit/gatewaycircuit/policy/emptyttl"
	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
	"github.com/gatewaycircuit/gatewaycircuit/policy/negcache"
	"github.com/gatewaycircuit/gatewaycircuit/policy/retryafter"
	"github.com/gatewaycircuit/gatewaycircuit/policy/stale"
)

// Response headers the edge adds.
const (
	HeaderCache       = "x-edge-cache"        // hit, miss, stale, pass or unavailable
	HeaderCollectedAt = "x-edge-collected-at" // when the copy was fetched (RFC 3339, UTC, ms)
	HeaderCoalesced   = "x-edge-coalesced"    // "1": this caller shared another's fetch
	HeaderReason      = "x-edge-reason"       // why a copy stood in or 503: cooldown, backoff
)

// Counter names (the admin endpoint's keys).
const (
	CountHits        = "hits"        // fresh copies served
	CountMisses      = "misses"      // fetches made as leader
	CountCoalesced   = "coalesced"   // callers that shared a fetch in flight
	CountStale       = "stale"       // copies served past their TTL
	CountUnavailable = "unavailable" // 503s: no copy young enough
	CountCooldowns   = "cooldowns"   // service pauses started or extended
	CountBackoffs    = "backoffs"    // transient failures that opened a backoff window
	CountUpstream    = "upstream"    // requests sent upstream
	CountEvicted     = "evicted"     // copies dropped to stay within MaxKeys/MaxBytes
)

const schema = `CREATE TABLE IF NOT EXISTS cache_entries (
	key TEXT PRIMARY KEY, id INTEGER NOT NULL, status INTEGER NOT NULL, header TEXT NOT NULL,
	body BLOB, stored_at INTEGER NOT NULL, ttl_ms INTEGER NOT NULL, limit_ms INTEGER NOT NULL, used_at INTEGER NOT NULL)`

const schemaBackoff = `CREATE TABLE IF NOT EXISTS cache_backoff (key TEXT PRIMARY KEY, until_ms INTEGER NOT NULL, steps INTEGER NOT NULL)`

const schemaState = `CREATE TABLE IF NOT EXISTS cache_state (name TEXT PRIMARY KEY, value TEXT NOT NULL)`

// Service is the cache of one upstream service.
type Service struct {
	name     string
	upstream string // base URL
	header   origin.Header
	policy   Policy
	db       sqldb.DB
	client   origin.Client
	now      func() int64
	Stats    *stats.Set

	mu      sync.Mutex         // guards the fields below; never held across a fetch
	pause   *cooldown.Cooldown // the service, on refused credentials
	limited *cooldown.Cooldown // each path answered 429, by itself
	backoff *negcache.Cache
	copies  *stale.Index
	empty   *emptyttl.Tracker
	flights map[string]*flight // key+"\n"+Accept → the fetch in flight
	pauseV  uint64             // pause.Version() last written
	limitV  uint64             // limited.Version() last written
	evicted uint64             // copies.Evicted() last counted
	check   *flight            // the credential check in flight
	checkOK int64              // until when a passed credential check is trusted (Unix ms)
}

type flight struct {
	done chan struct{} // closed when res is set
	res  origin.Response
}

// Options are what a Service is made of besides its policy.
type Options struct {
	Name     string        // the service, e.g. "api": the cooldown's scope
	Upstream string        // base URL the keys are appended to
	Header   origin.Header // sent with every upstream request (an API key)
	DB       sqldb.DB
	Client   origin.Client
	Now      func() int64 // Unix ms, never going back
}

// Open returns the Service, with its state restored from o.DB.
func Open(p Policy, o Options) (*Service, error) {
	p = p.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := sqldb.MustExec(o.DB, schema, schemaBackoff, schemaState); err != nil {
		return nil, err
	}
	st, err := stats.Open(o.DB, o.Now)
	if err != nil {
		return nil, err
	}
	s := &Service{name: o.Name, upstream: strings.TrimSuffix(o.Upstream, "/"), header: o.Header,
		policy: p, db: o.DB, client: o.Client, now: o.Now, Stats: st, flights: map[string]*flight{}}
	s.pause, _ = cooldown.New(cooldown.Policy{PauseMs: p.PauseMs, MaxPauseMs: p.MaxPauseMs, NoRetry: true})
	s.limited, _ = cooldown.New(cooldown.Policy{PauseMs: p.PauseMs, MaxPauseMs: p.MaxPauseMs, NoRetry: true, MaxServices: p.MaxKeys})
	s.backoff, _ = negcache.New(negcache.Policy{Mode: mode.Always, BackoffMs: p.BackoffMs, FirstUncachedMs: p.FirstFailureMs, MaxKeys: p.MaxKeys})
	s.copies, _ = stale.New(stale.Policy{Mode: mode.On, MaxEntries: p.MaxKeys, MaxBytes: p.MaxBytes, MaxStaleMs: p.MaxStaleMs})
	s.empty, _ = emptyttl.New(emptyttl.Policy{Mode: mode.On, Steps: p.EmptySteps, MaxKeys: p.MaxKeys})
	if err := s.restore(); err != nil {
		return nil, err
	}
	return s, nil
}

// restore reads the copies, backoffs and pause back from the database.
func (s *Service) restore() error {
	now := s.now()
	rows, err := s.db.Exec(`SELECT key, id, stored_at, length(body), limit_ms FROM cache_entries ORDER BY used_at, id`)
	if err != nil {
		return err
	}
	saved := make([]stale.Saved, 0, len(rows))
	for _, r := range rows {
		saved = append(saved, stale.Saved{Key: sqldb.String(r[0]), ID: uint32(sqldb.Int(r[1])),
			StoredAtMs: sqldb.Int(r[2]), Bytes: sqldb.Int(r[3]), LimitMs: sqldb.Int(r[4])})
	}
	s.copies.Restore(saved)
	s.dropCopies()
	if rows, err = s.db.Exec(`SELECT key, until_ms, steps FROM cache_backoff ORDER BY until_ms`); err != nil {
		return err
	}
	backoffs := make([]negcache.Saved, 0, len(rows))
	for _, r := range rows {
		backoffs = append(backoffs, negcache.Saved{Key: sqldb.String(r[0]), UntilMs: sqldb.Int(r[1]), Steps: int(sqldb.Int(r[2]))})
	}
	s.backoff.Restore(now, backoffs)
	if rows, err = s.db.Exec(`SELECT name, value FROM cache_state WHERE name IN ('cooldown', 'limited')`); err != nil {
		return err
	}
	for _, r := range rows {
		if sqldb.String(r[0]) == "cooldown" {
			s.pause.Restore(sqldb.String(r[1]), now)
		} else {
			s.limited.Restore(sqldb.String(r[1]), now)
		}
	}
	s.pauseV, s.limitV = s.pause.Version(), s.limited.Version()
	return nil
}

// Lookup answers a GET for key from the edge's state alone, when it can:
// a fresh copy, or a stand-in for a paused service or a key in backoff. It
// reports false when the answer needs the upstream (Get then fetches or
// joins the fetch in flight). It never waits, so the worker calls it
// synchronously and skips a Promise on a hit.
func (s *Service) Lookup(key, accept string) (origin.Response, bool) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.decide(now, key, accept)
}

// decide is steps 1–3 of the package comment. Called with mu held.
func (s *Service) decide(now int64, key, accept string) (origin.Response, bool) {
	if until, paused := s.pause.Decide(now, s.name); paused {
		return s.standIn(now, key, accept, until, "cooldown"), true
	}
	if until, paused := s.limited.Decide(now, pathOf(key)); paused {
		return s.standIn(now, key, accept, until, "cooldown"), true
	}
	if res, ok := s.fresh(now, key, accept); ok {
		return res, true
	}
	if until, hit := s.backoff.Decide(now, key); hit {
		return s.standIn(now, key, accept, until, "backoff"), true
	}
	return origin.Response{}, false
}

// Get answers a GET for key (path and query, e.g. "/api/items?page=2").
// accept is the caller's Accept header: the one header of the client's the
// edge sends upstream, so only callers with the same Accept share a fetch.
func (s *Service) Get(ctx context.Context, key, accept string) origin.Response {
	now := s.now()
	fk := key + "\n" + accept
	s.mu.Lock()
	if res, ok := s.decide(now, key, accept); ok {
		s.mu.Unlock()
		return res
	}
	if f := s.flights[fk]; f != nil {
		s.mu.Unlock()
		s.Stats.Add(CountCoalesced, 1)
		select {
		case <-f.done:
			if f.res.Held != 0 { // too large to share: the leader streams it; this caller fetches its own
				return s.through(ctx, key, accept)
			}
			return withHeader(f.res, HeaderCoalesced, "1")
		case <-ctx.Done():
			return unavailable(0, "aborted")
		}
	}
	f := &flight{done: make(chan struct{})}
	s.flights[fk] = f
	s.mu.Unlock()

	s.Stats.Add(CountMisses, 1)
	s.Stats.Add(CountUpstream, 1)
	// The fetch is not tied to the leader's caller: others may be waiting.
	ans, err := s.client.Fetch(context.WithoutCancel(ctx), s.request(key, accept))
	refused := err == nil && refusal(ans.Status) && s.credentialsRefused(ctx, key)

	now = s.now()
	s.mu.Lock()
	f.res = s.settle(now, key, accept, ans, err, refused)
	delete(s.flights, fk)
	s.mu.Unlock()
	s.Stats.Flush() // with the state the answer wrote: one durable write
	close(f.done)
	return f.res
}

// request is the upstream GET for key, carrying the caller's Accept.
func (s *Service) request(key, accept string) origin.Request {
	req := origin.Request{Method: "GET", URL: s.upstream + key, Header: s.header, MaxBodyBytes: s.policy.MaxBodyBytes}
	if accept != "" {
		req.Header = req.Header.Set("accept", accept)
	}
	return req
}

// through fetches key for one caller whose shared fetch's answer was too
// large to share: whatever comes, it is passed through, uncached.
func (s *Service) through(ctx context.Context, key, accept string) origin.Response {
	s.Stats.Add(CountUpstream, 1)
	ans, err := s.client.Fetch(ctx, s.request(key, accept))
	if err != nil {
		return unavailable(0, "unreachable")
	}
	return withHeader(ans, HeaderCache, "pass")
}

// refusal reports whether status is the upstream refusing a request's
// credentials.
func refusal(status int) bool { return status == 401 || status == 403 }

// credentialsRefused reports whether the upstream refuses the edge's own
// credentials, after a GET of key was answered 401 or 403: only the
// operator's credential check can say so. The check is one fetch shared by
// every caller that needs it, and a check that passed is trusted for
// FreshTTLMs, so however many refused paths clients ask for, the check
// costs at most one upstream request per FreshTTLMs.
func (s *Service) credentialsRefused(ctx context.Context, key string) bool {
	check := s.policy.CredentialCheck
	switch {
	case check == "":
		return false
	case key == check:
		return true
	}
	s.mu.Lock()
	if s.now() < s.checkOK {
		s.mu.Unlock()
		return false
	}
	if f := s.check; f != nil {
		s.mu.Unlock()
		<-f.done
		return refusal(f.res.Status)
	}
	f := &flight{done: make(chan struct{})}
	s.check = f
	s.mu.Unlock()

	s.Stats.Add(CountUpstream, 1)
	res, err := s.client.Fetch(context.WithoutCancel(ctx), origin.Request{Method: "GET", URL: s.upstream + check, Header: s.header})
	if err != nil {
		res = origin.Response{} // no answer is no evidence either way
	}
	s.mu.Lock()
	f.res = res
	if !refusal(res.Status) {
		s.checkOK = s.now() + s.policy.FreshTTLMs
	}
	s.check = nil
	s.mu.Unlock()
	close(f.done)
	return refusal(res.Status)
}

// copyFor finds the copy that answers key for a caller whose Accept is
// accept: the one for every caller, else the one kept for that Accept (the
// answer said Vary: Accept). Called with mu held.
func (s *Service) copyFor(now int64, key, accept string) (stale.Copy, bool) {
	if c, ok := s.copies.Lookup(now, key); ok {
		return c, true
	}
	return s.copies.Lookup(now, variantKey(key, accept))
}

// variantKey is where a copy that varies by Accept is kept.
func variantKey(key, accept string) string { return key + "\naccept: " + accept }

// vary is how an answer's Vary header splits its copies.
type vary int

const (
	varyNone   vary = iota // one copy for every caller
	varyAccept             // one copy per Accept
	varyAll                // "*": never kept
)

// parseVary reads a Vary header. Accept is the only request header of the
// client's that the edge sends upstream on a GET; every other header named
// (Accept-Encoding, Origin, User-Agent…) is one the edge sets itself, or
// does not send, the same for every caller: it splits nothing.
func parseVary(v string) vary {
	out := varyNone
	for name := range strings.SplitSeq(v, ",") {
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "*":
			return varyAll
		case "accept":
			out = varyAccept
		}
	}
	return out
}

// fresh returns key's copy if it is younger than its TTL. Called with mu held.
func (s *Service) fresh(now int64, key, accept string) (origin.Response, bool) {
	c, ok := s.copyFor(now, key, accept)
	s.dropCopies()
	if !ok {
		return origin.Response{}, false
	}
	res, ttl, ok := s.load(c)
	if !ok || c.AgeMs >= ttl {
		return origin.Response{}, false
	}
	s.Stats.Add(CountHits, 1)
	return res.mark("hit", c), true
}

// standIn answers for a paused service or a key in backoff: the copy if one
// is young enough (a hit if still fresh), else 503 until untilMs. Called
// with mu held.
func (s *Service) standIn(now int64, key, accept string, untilMs int64, reason string) origin.Response {
	c, ok := s.copyFor(now, key, accept)
	s.dropCopies()
	if ok {
		if res, ttl, ok := s.load(c); ok {
			if c.AgeMs < ttl {
				s.Stats.Add(CountHits, 1)
				return res.mark("hit", c)
			}
			s.Stats.Add(CountStale, 1)
			return withHeader(res.mark("stale", c), HeaderReason, reason)
		}
	}
	s.Stats.Add(CountUnavailable, 1)
	return unavailable(untilMs-now, reason)
}

// settle takes the leader's answer (or failure) and returns what every
// caller of the flight gets. Called with mu held.
// refused says the answer is the upstream refusing the edge's credentials.
func (s *Service) settle(now int64, key, accept string, ans origin.Response, err error, refused bool) origin.Response {
	switch {
	case err != nil || negcache.Failure(ans.Status):
		s.succeeded(now, key)
		_, hasCopy := s.copies.Saved(key)
		if !hasCopy {
			_, hasCopy = s.copies.Saved(variantKey(key, accept))
		}
		until := s.backoff.Failed(now, key, hasCopy)
		s.saveBackoff(key)
		s.Stats.Add(CountBackoffs, 1)
		return s.standIn(now, key, accept, until, "backoff")
	case ans.Status == 429 || refused:
		ra, ok := retryafter.Parse(ans.Header.Get("retry-after"), now)
		if !ok {
			ra = cooldown.NoRetryAfter
		}
		var o cooldown.Outcome
		if refused {
			o = s.pause.Limited(now, s.name, ra, true)
		} else {
			o = s.limited.Limited(now, pathOf(key), ra, true)
		}
		s.savePause()
		s.Stats.Add(CountCooldowns, 1)
		return s.standIn(now, key, accept, o.UntilMs, "cooldown")
	}
	s.succeeded(now, key)
	if _, had := s.backoff.Saved(key); had {
		s.backoff.Succeeded(key)
		_, _ = s.db.Exec(`DELETE FROM cache_backoff WHERE key = ?`, key)
	}
	if ans.Status < 200 || ans.Status > 299 || ans.Held != 0 {
		// 3xx/4xx (a 401/403 of this path alone too): the caller's business;
		// a body too large to read streams through. Neither is cached.
		return withHeader(ans, HeaderCache, "pass")
	}
	kept := origin.Keep(ans.Header)
	switch parseVary(kept.Get("vary")) {
	case varyAll:
		return withHeader(ans, HeaderCache, "pass")
	case varyAccept:
		s.copies.Remove(key) // kept before the upstream began to vary
		key = variantKey(key, accept)
	}
	ttl := max(s.policy.FreshTTLMs, s.empty.Observe(now, key, emptyttl.Empty(ans.Body)))
	id := s.copies.Store(now, key, int64(len(ans.Body)), kept.Get("cache-control"))
	if id != 0 {
		saved, _ := s.copies.Saved(key)
		if _, err := s.db.Exec(`INSERT OR REPLACE INTO cache_entries (key, id, status, header, body, stored_at, ttl_ms, limit_ms, used_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, key, int64(id), int64(ans.Status), origin.Encode(kept), ans.Body, now, ttl, saved.LimitMs, now); err != nil {
			s.copies.Remove(key) // not stored: it takes no room in the budget
		}
	}
	s.dropCopies()
	return resp{Status: ans.Status, Header: kept, Body: ans.Body}.mark("miss", stale.Copy{StoredAtMs: now})
}

// load reads a copy's answer and TTL from the database.
func (s *Service) load(c stale.Copy) (resp, int64, bool) {
	rows, err := s.db.Exec(`SELECT status, header, body, ttl_ms FROM cache_entries WHERE id = ?`, int64(c.ID))
	if err != nil || len(rows) != 1 {
		return resp{}, 0, false
	}
	r := rows[0]
	return resp{Status: int(sqldb.Int(r[0])), Header: origin.Decode(sqldb.String(r[1])), Body: sqldb.Bytes(r[2])}, sqldb.Int(r[3]), true
}

// dropCopies deletes the rows of the copies the index let go.
func (s *Service) dropCopies() {
	for _, id := range s.copies.Dropped() {
		_, _ = s.db.Exec(`DELETE FROM cache_entries WHERE id = ?`, int64(id))
	}
	if n := s.copies.Evicted(); n > s.evicted {
		s.Stats.Add(CountEvicted, int64(n-s.evicted))
		s.evicted = n
	}
}

func (s *Service) saveBackoff(key string) {
	if b, ok := s.backoff.Saved(key); ok {
		_, _ = s.db.Exec(`INSERT OR REPLACE INTO cache_backoff (key, until_ms, steps) VALUES (?, ?, ?)`, key, b.UntilMs, int64(b.Steps))
	}
	// Keys quiet for longer than the longest window are forgotten.
	_, _ = s.db.Exec(`DELETE FROM cache_backoff WHERE until_ms < ?`, s.now()-maxOf(s.policy.BackoffMs))
}

// succeeded ends the strikes of the service and of key's path: any answer
// but a 429 (or refused credentials) is not a limit. Called with mu held.
func (s *Service) succeeded(now int64, key string) {
	s.pause.Succeeded(now, s.name)
	s.limited.Succeeded(now, pathOf(key))
	s.savePause()
}

// pathOf is the scope a 429 pauses: the key's path, without its query
// (a client that varies the query to miss the cache still asks one path).
func pathOf(key string) string {
	path, _, _ := strings.Cut(key, "?")
	return path
}

// savePause writes the pauses that changed. Called with mu held.
func (s *Service) savePause() {
	if v := s.pause.Version(); v != s.pauseV {
		s.pauseV = v
		_, _ = s.db.Exec(`INSERT OR REPLACE INTO cache_state (name, value) VALUES ('cooldown', ?)`, s.pause.Encode())
	}
	if v := s.limited.Version(); v != s.limitV {
		s.limitV = v
		_, _ = s.db.Exec(`INSERT OR REPLACE INTO cache_state (name, value) VALUES ('limited', ?)`, s.limited.Encode())
	}
}

// Keys returns the keys of the copies kept, least recently used first.
func (s *Service) Keys() []string {
	rows, _ := s.db.Exec(`SELECT key FROM cache_entries ORDER BY used_at, id`)
	keys := make([]string, len(rows))
	for i, r := range rows {
		keys[i] = sqldb.String(r[0])
	}
	return keys
}

// Len is the number of copies kept.
func (s *Service) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.copies.Len()
}

type resp origin.Response

// mark adds the cache status, the copy's Age and when it was collected.
func (r resp) mark(status string, c stale.Copy) origin.Response {
	h := append(origin.Header(nil), r.Header...)
	h = append(h, [2]string{HeaderCache, status},
		[2]string{"age", strconv.FormatInt(c.AgeMs/1000, 10)},
		[2]string{HeaderCollectedAt, time.UnixMilli(c.StoredAtMs).UTC().Format("2006-01-02T15:04:05.000Z")})
	return origin.Response{Status: r.Status, Header: h, Body: r.Body}
}

func withHeader(r origin.Response, name, value string) origin.Response {
	r.Header = append(append(origin.Header(nil), r.Header...), [2]string{name, value})
	return r
}

// unavailable is the 503 for "no copy young enough": Retry-After is the
// time left in the pause or backoff, rounded up to whole seconds.
func unavailable(leftMs int64, reason string) origin.Response {
	secs := strconv.FormatInt(max((leftMs+999)/1000, 1), 10)
	return origin.Response{
		Status: 503,
		Header: origin.Header{{"content-type", "application/json"}, {"retry-after", secs},
			{"cache-control", "no-store"}, {HeaderCache, "unavailable"}, {HeaderReason, reason}},
		Body: []byte(`{"error":"edge_unavailable","reason":"` + reason + `","retryAfterMs":` + strconv.FormatInt(max(leftMs, 0), 10) + `}`),
	}
}

func maxOf(xs []int64) int64 {
	var m int64
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
