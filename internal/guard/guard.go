// Package guard composes the policies around the circuit into the one
// decision the fetch wrapper asks for, in a fixed order (docs/policies.md):
//
//	scope → 429 cooldown → circuit (or its scout) → half-open probe → negative cache
//	      → coalescing → network → observe the answer
//
// with the stale fallback answering for the circuit, the negative cache and
// failed requests when it is enabled. Like every policy it never reads a
// clock and never waits: Begin and Finish take the time and return decisions
// as data, and the JS glue acts on them. A Guard is not safe for concurrent
// use; the wasm calls it from one thread.
package guard

import (
	"strings"

	"github.com/gatewaycircuit/gatewaycircuit/internal/circuit"
	"github.com/gatewaycircuit/gatewaycircuit/internal/coalesce"
	"github.com/gatewaycircuit/gatewaycircuit/internal/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/internal/metrics"
	"github.com/gatewaycircuit/gatewaycircuit/internal/probe"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
	"github.com/gatewaycircuit/gatewaycircuit/policy/cooldown"
	"github.com/gatewaycircuit/gatewaycircuit/policy/emptyttl"
	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
	"github.com/gatewaycircuit/gatewaycircuit/policy/negcache"
	"github.com/gatewaycircuit/gatewaycircuit/policy/retryafter"
	"github.com/gatewaycircuit/gatewaycircuit/policy/stale"
)

// Policy is the configuration of every policy, as plain data. The probe's
// TTLs are taken from the circuit's.
type Policy struct {
	Circuit  circuit.Policy  `json:"circuit"`
	Cooldown cooldown.Policy `json:"cooldown"`
	Probe    probe.Policy    `json:"probe"`
	Negative negcache.Policy `json:"negative"`
	Stale    stale.Policy    `json:"stale"`
	Coalesce coalesce.Policy `json:"coalesce"`
	// Empty is the adaptive TTL for empty results (opt-in).
	Empty emptyttl.Policy `json:"empty"`
	// Idempotency is the ledger of mutations (idempotency keys).
	Idempotency idempotency.Policy `json:"idempotency"`
	// PageOrigin is the page's origin ("https://app.example"): mutations to
	// it carry keys unless Idempotency.Mode is Off, to other origins only
	// when it is CrossOrigin.
	PageOrigin string `json:"pageOrigin"`
	// Reloaded says the page is a reload of the one before it (F5): its
	// requests are those the stored open period has seen, and it sends no
	// scout (circuit.Breaker.Reloaded).
	Reloaded bool `json:"reloaded"`
	// TimeoutMs is the deadline of an in-scope request; 0: none (DefaultTimeoutMs).
	// The glue enforces it and reports a request past it as a 504.
	TimeoutMs int64 `json:"timeoutMs"`
}

// MaxInFlight bounds the requests a Guard tracks between Begin and Finish.
// A request never finished (a hung fetch nobody aborts) is forgotten, oldest
// first, past this: it then finishes as untracked.
const MaxInFlight = 4096

// Kind is what to do with a request.
type Kind int32

const (
	Pass     Kind = iota // out of scope: native fetch, nothing to report
	Send                 // to the network, then Finish(Ticket) (or Abort)
	Join                 // coalesced: wait for the answer of flight Flight
	Wait                 // half-open: wait for probe Probe to end, then Begin again
	Open                 // the circuit is armed: synthetic 503
	Cooling              // the service asked for a pause (429): synthetic 503
	Negative             // the same GET failed moments ago: synthetic 503
	Stale                // answer with the stale copy Copy
	Cached               // the key keeps answering empty: answer with its copy Copy
)

// Statuses that are not HTTP statuses, for Finish and Observe.
const (
	// StatusNoAnswer: fetch rejected (network error, reset, CORS failure).
	StatusNoAnswer = 0
	// StatusOpaque: an opaque (no-cors) or opaqueredirect response. It is an
	// answer whose status the page cannot see: never a failure, never a trip,
	// never a copy.
	StatusOpaque = -1
)

// Answer is the decision for one request.
type Answer struct {
	Kind    Kind
	Ticket  uint32     // Send: names the request in Finish and Abort
	Flight  uint32     // Send, Join: the coalesced flight (0 = none)
	Probe   uint32     // Send: the probe's id when this request is the half-open probe or a scout (ScoutBit set); Wait: the probe or scout to wait for
	WaitMs  int64      // Wait: how long to wait for the probe at most
	UntilMs int64      // Open, Cooling, Negative: when that state ends
	Status  int        // Open: the status that armed the circuit
	Copy    stale.Copy // Stale, Cached
	Keyed   bool       // Send: a mutation that carries an Idempotency-Key (Keyed): the ledger gives it before it is sent
}

// Outcome is what to do with a network answer (or failure, status 0).
type Outcome struct {
	Retry    bool       // a 429 with a short Retry-After: send again after WaitMs
	WaitMs   int64      //
	WantBody bool       // keep a copy: call Store with the body's size
	Serve    bool       // the request failed: answer with the stale copy Copy
	Copy     stale.Copy //
}

// ScoutBit marks an Answer's Probe that names a scout of the open circuit
// (circuit.Breaker.Scout), not a half-open probe: the glue waits on both the
// same way, and their ids must not meet.
const ScoutBit = 1 << 31

type ticket struct {
	svc     string // cooldown service
	key     string // coalesce / negcache / stale key; "" = not keyed (not a GET)
	shareAs string // the flight it shares: key, and its caller's own deadline (coalesce.FlightKey)
	flight  uint32 // coalesced flight led by this request
	probe   uint32 // the probe id when this request is the probe
	scout   uint32 // the scout id when this request is the open circuit's scout
	retried bool   // already retried after a 429
	sentMs  int64  // when it was sent (again, after a retry's wait): the trip rule's span
	storeCC string // Cache-Control kept between Finish and Store
}

// Guard holds every policy's state for one tab.
type Guard struct {
	breaker  *circuit.Breaker
	cooldown *cooldown.Cooldown
	gate     *probe.Gate
	neg      *negcache.Cache
	stale    *stale.Index
	flights  *coalesce.Table
	keyRule  coalesce.Policy
	metrics  metrics.Set
	ledger   *idempotency.Ledger // nil when idempotency is off
	empty    *emptyttl.Tracker
	// staleFallback: copies answer for failures (data-stale). Copies are also
	// kept, without that, for the adaptive TTL of empty results.
	staleFallback bool

	policy       Policy // as given (each policy keeps its defaulted copy)
	store        store.Store
	cooldownSeen uint64 // cooldown version last written to the store

	tickets    map[uint32]*ticket // requests between Begin and Finish
	lastTicket uint32
	seen       uint32 // breaker version last synced to the gate
}

// New builds a Guard over s (sessionStorage in the browser).
func New(p Policy, s store.Store) (*Guard, error) {
	b, err := circuit.New(p.Circuit, s)
	if err != nil {
		return nil, err
	}
	g := &Guard{breaker: b, keyRule: p.Coalesce.WithDefaults(), tickets: map[uint32]*ticket{}, store: s, policy: p}
	if g.cooldown, err = cooldown.New(p.Cooldown); err != nil {
		return nil, err
	}
	if g.gate, err = probe.New(p.Probe); err != nil {
		return nil, err
	}
	if g.neg, err = negcache.New(p.Negative); err != nil {
		return nil, err
	}
	// One index keeps the copies of both: the stale fallback's and the
	// empty-answer cache's.
	g.staleFallback = p.Stale.WithDefaults().Mode == mode.On
	copies := p.Stale
	if g.staleFallback || p.Empty.WithDefaults().Mode == mode.On {
		copies.Mode = mode.On
	}
	if g.stale, err = stale.New(copies); err != nil {
		return nil, err
	}
	if g.empty, err = emptyttl.New(p.Empty); err != nil {
		return nil, err
	}
	if g.flights, err = coalesce.New(p.Coalesce); err != nil {
		return nil, err
	}
	if p.Idempotency.WithDefaults().Mode != mode.Off {
		if g.ledger, err = idempotency.New(p.Idempotency, s); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// Keyed reports whether an in-scope request carries an Idempotency-Key: a
// mutation (idempotency.Methods) while the ledger is on, to the page's own
// origin always, to others only when opted in (Mode CrossOrigin).
func (g *Guard) Keyed(method, url string) bool {
	if g.ledger == nil || !idempotency.Keyed(method) {
		return false
	}
	o := g.policy.PageOrigin
	return g.policy.Idempotency.Mode == mode.CrossOrigin || o == "" ||
		(strings.HasPrefix(url, o) && (len(url) == len(o) || url[len(o)] == '/' || url[len(o)] == '?' || url[len(o)] == '#'))
}

// Ledger is the idempotency ledger of mutations, or nil when it is off.
func (g *Guard) Ledger() *idempotency.Ledger { return g.ledger }

// Breaker is the circuit, for arm/read/clear and its state.
func (g *Guard) Breaker() *circuit.Breaker { return g.breaker }

// Metrics are the counters of what the guard decided. Network and Retries
// stay 0 here: the glue counts what it sends, where it sends it. Evicted sums
// every bounded table: requests in flight, the negative cache, the copies,
// the cooldowns and the empty-result TTLs.
func (g *Guard) Metrics() metrics.Set {
	m := g.metrics
	m.AddN(metrics.Evicted, g.neg.Evicted()+g.stale.Evicted()+g.cooldown.Evicted()+g.empty.Evicted())
	return m
}

// Load restores the stored circuit (page start).
func (g *Guard) Load(nowMs int64) circuit.State {
	s := g.Reload(nowMs)
	if g.policy.Reloaded {
		g.breaker.Reloaded()
	}
	if g.ledger != nil {
		g.ledger.Load(nowMs) // pending actions of the page that is gone are failed: retry with their keys
	}
	return s
}

// Reload reads the circuit and the 429 pauses from the store again: the
// page came back from the back/forward cache, or another instance sharing
// the tab's storage (a frame) armed or cleared them.
func (g *Guard) Reload(nowMs int64) circuit.State {
	s := g.breaker.Load(nowMs)
	g.syncGate()
	// A pause the server asked for survives F5 too; one another frame of the
	// tab ended (nothing stored any more) ends here too.
	if raw, _, err := g.store.Get(cooldown.StorageKey); err == nil {
		g.cooldown.Restore(raw, nowMs)
	}
	g.cooldownSeen = g.cooldown.Version()
	return s
}

// Arm arms the circuit by hand (gatewayCircuit.arm).
func (g *Guard) Arm(nowMs int64, status int, ttlMs int64) (circuit.State, error) {
	s, err := g.breaker.Arm(nowMs, status, ttlMs)
	g.syncGate()
	return s, err
}

// Clear is the user's "try again": it ends everything the module chose on
// its own — the circuit, the probe state, the negative cache, the
// empty-result TTLs and every 429 pause that had no Retry-After. A pause the
// server asked for with Retry-After stays (it is visible in Pauses), and so
// do stale copies: they are data, not failure state.
func (g *Guard) Clear() {
	g.breaker.Clear()
	g.gate.Clear()
	g.neg.Clear()
	g.empty.Clear()
	g.cooldown.ClearChosen()
	g.saveCooldown()
	g.seen = g.breaker.Version()
}

// Forget is the logout: nothing of the previous user may reach the next.
// Stale and empty-result copies are dropped (their ids go to Dropped),
// requests in flight can no longer be joined, and the ledger drops its
// pending keys (for every instance of the tab).
func (g *Guard) Forget(nowMs int64) {
	g.stale.Clear()
	g.empty.Clear()
	g.neg.Clear()
	g.flights.Forget()
	if g.ledger != nil {
		g.ledger.Forget(nowMs)
	}
}

// Version changes whenever what blocks requests changes: the circuit or a
// 429 pause. The glue then reads both and tells the subscribers.
func (g *Guard) Version() uint64 { return uint64(g.breaker.Version())<<32 ^ g.cooldown.Version() }

// PausesText is the 429 pauses in their stored format (cooldown.Encode):
// the shim reads it with the same reader as the stored key.
func (g *Guard) PausesText() string { return g.cooldown.Encode() }

// Begin decides for a request. headers is the request's header block
// ("name: value" lines), which only matters for the coalescing key. The
// strings may be transient: Begin keeps none of them.
func (g *Guard) Begin(nowMs int64, method, url, headers string) Answer {
	g.metrics.Add(metrics.Decisions)
	t, ok := g.ticketFor(method, url, headers)
	if !ok {
		return Answer{Kind: Pass}
	}
	t.sentMs = nowMs // the glue sends it at once
	svc, key := t.svc, t.key
	if until, paused := g.cooldown.Decide(nowMs, svc); paused {
		g.metrics.Add(metrics.CooledDown)
		return Answer{Kind: Cooling, UntilMs: until}
	}
	if _, armed := g.breaker.Read(nowMs); armed { // in scope already: no second prefix scan
		switch d, id := g.breaker.Scout(nowMs, key, g.gate.Policy().ProbeTimeoutMs); d {
		case circuit.ScoutSend:
			g.metrics.Add(metrics.Scouts)
			t.scout = id
			return g.send(t, method, url)
		case circuit.ScoutWait:
			return Answer{Kind: Wait, Probe: id | ScoutBit, WaitMs: g.gate.Policy().ProbeTimeoutMs}
		}
		return g.staleOr(nowMs, key, g.open())
	}
	d, probeID := g.gate.Decide(nowMs, g.breaker.Phase(nowMs) == circuit.HalfOpen)
	switch d {
	case probe.Block:
		// BlockWaiters: others are answered as open while the probe is out.
		g.metrics.Add(metrics.ShortCircuited)
		return g.staleOr(nowMs, key, Answer{Kind: Open, UntilMs: nowMs + 1000, Status: 503})
	case probe.Wait:
		return Answer{Kind: Wait, Probe: probeID, WaitMs: g.gate.Policy().ProbeTimeoutMs}
	case probe.Probe:
		g.metrics.Add(metrics.Probes)
		t.probe = probeID
		return g.send(t, method, url)
	}
	if key != "" {
		if until, hit := g.neg.Decide(nowMs, key); hit {
			g.metrics.Add(metrics.NegativeHits)
			return g.staleOr(nowMs, key, Answer{Kind: Negative, UntilMs: until, Status: 503})
		}
		if _, hit := g.empty.Decide(nowMs, key); hit {
			if c, ok := g.stale.Lookup(nowMs, key); ok {
				g.metrics.Add(metrics.EmptyReused)
				return Answer{Kind: Cached, Copy: c}
			}
		}
		id, leader := g.flights.Join(t.shareAs)
		if !leader {
			g.metrics.Add(metrics.Coalesced)
			return Answer{Kind: Join, Flight: id}
		}
		t.flight = id
	}
	return g.send(t, method, url)
}

// ticketFor is an in-scope request's ticket: its cooldown service and, for
// a GET or HEAD, its key (coalescing, negative cache, copies). ok is false
// out of scope. The strings may be transient: the key is built anew, and the
// service is one of the policy's scope entries.
func (g *Guard) ticketFor(method, url, headers string) (t *ticket, ok bool) {
	cp := g.breaker.Policy()
	if !cp.InScope(url) {
		return nil, false
	}
	t = &ticket{svc: cooldown.Service(url, cp.Scope)}
	if method == "GET" || method == "HEAD" {
		hs := coalesce.ParseHeaders(headers)
		t.key, _ = g.keyRule.Key(method, url, hs)
		t.shareAs = coalesce.FlightKey(t.key, hs)
	}
	return t, true
}

// Finish takes the answer of a request sent on ticket id: its status
// (StatusNoAnswer when fetch failed, StatusOpaque for an opaque answer),
// Retry-After and Cache-Control headers, and finalURL, the response's URL
// when it was redirected (else ""). An answer from a URL out of scope
// says nothing about the guarded gateway: it is not observed.
func (g *Guard) Finish(nowMs int64, id uint32, status int, retryAfter, cacheControl, finalURL string) Outcome {
	t, ok := g.tickets[id]
	if !ok {
		return Outcome{}
	}
	if status == StatusOpaque || g.leftScope(finalURL) {
		g.settle(id, t, status == StatusOpaque)
		return Outcome{}
	}
	if o, retry := g.observe(nowMs, circuit.Span{SentMs: t.sentMs, AnsweredMs: nowMs}, t, status, retryAfter); retry {
		t.sentMs = nowMs + o.WaitMs // the retry is a request of its own
		return o
	}
	if t.flight != 0 {
		g.flights.Complete(t.flight)
	}
	var out Outcome
	if c, has := g.observeKey(nowMs, t.key, status); has && g.staleFallback {
		g.metrics.Add(metrics.StaleServed)
		out.Serve, out.Copy = true, c
	} else if t.key != "" && status >= 200 && status < 300 && g.stale.Policy().Mode == mode.On {
		out.WantBody = true
		t.storeCC = strings.Clone(cacheControl) // the caller's string may be transient
		return out                              // the ticket lives on until Store
	}
	delete(g.tickets, id)
	return out
}

// leftScope: a redirect took the request out of scope.
func (g *Guard) leftScope(finalURL string) bool {
	if finalURL == "" {
		return false
	}
	cp := g.breaker.Policy()
	return !cp.InScope(finalURL)
}

// settle ends ticket id without observing its answer: its flight is
// complete, and a probe it carried is released (answered: the gateway
// answered something; else abandoned, so another request probes).
func (g *Guard) settle(id uint32, t *ticket, answered bool) {
	if t.flight != 0 {
		g.flights.Complete(t.flight)
	}
	if t.probe != 0 {
		if answered {
			g.gate.Succeeded(t.probe)
		} else {
			g.gate.Abandoned(t.probe)
		}
		g.syncGate()
	}
	g.breaker.ScoutEnded(t.scout)
	delete(g.tickets, id)
}

// observeKey applies a GET's answer to the negative cache. For a failure it
// returns the key's stale copy, when there is one.
func (g *Guard) observeKey(nowMs int64, key string, status int) (stale.Copy, bool) {
	switch {
	case key == "":
	case negcache.Failure(status):
		c, has := g.stale.Lookup(nowMs, key)
		g.neg.Failed(nowMs, key, has)
		return c, has
	case status >= 200 && status < 300:
		g.neg.Succeeded(key)
	}
	return stale.Copy{}, false
}

// Observe takes the answer of an in-scope request that went to the network
// without Begin: one sent before the wasm was ready, in flight during span
// (answered before nowMs). Its status still counts for the circuit, the
// cooldown and the negative cache; it is not retried.
func (g *Guard) Observe(nowMs int64, span circuit.Span, method, url, headers string, status int, retryAfter, finalURL string) {
	t, ok := g.ticketFor(method, url, headers)
	if !ok || status == StatusOpaque || g.leftScope(finalURL) {
		return
	}
	t.retried = true // not retried: the caller has its answer already
	g.observe(nowMs, span, t, status, retryAfter)
	g.observeKey(nowMs, t.key, status)
}

// observe applies an answer to the cooldown, the circuit and the probe. It
// returns the retry outcome of a 429 with a short Retry-After.
func (g *Guard) observe(nowMs int64, span circuit.Span, t *ticket, status int, retryAfter string) (Outcome, bool) {
	if status == 429 {
		delay, ok := retryafter.Parse(retryAfter, nowMs)
		if !ok {
			delay = cooldown.NoRetryAfter
		}
		o := g.cooldown.Limited(nowMs, t.svc, delay, t.retried)
		g.saveCooldown()
		if o.Action == cooldown.Retry {
			t.retried = true
			return Outcome{Retry: true, WaitMs: o.WaitMs}, true
		}
	} else if status != 0 {
		g.cooldown.Succeeded(nowMs, t.svc)
		g.saveCooldown()
	}
	g.observeCircuit(nowMs, span, t, status, retryAfter)
	return Outcome{}, false
}

// saveCooldown writes the pauses when they changed (rarely: a 429, or the
// success that ends its strikes). A store that fails leaves them in memory.
func (g *Guard) saveCooldown() {
	if v := g.cooldown.Version(); v != g.cooldownSeen {
		g.cooldownSeen = v
		if enc := g.cooldown.Encode(); enc == "" {
			_ = g.store.Delete(cooldown.StorageKey)
		} else {
			_ = g.store.Set(cooldown.StorageKey, enc)
		}
	}
}

// Store keeps the body (bytes long) of the 2xx answer of ticket id as the
// key's copy, after Finish asked for it; bytes < 0 says the shim took no
// copy (the ticket ends, and the key's older copy goes). small is the whole body when it is
// short (emptyttl.Empty looks at it), else nil. It returns the copy's id, or
// 0 when it is not kept; then call Dropped for the bodies to release.
func (g *Guard) Store(nowMs int64, id uint32, bytes int64, small []byte) uint32 {
	t, ok := g.tickets[id]
	if !ok || t.key == "" {
		return 0
	}
	delete(g.tickets, id)
	g.empty.Observe(nowMs, t.key, int64(len(small)) == bytes && emptyttl.Empty(small))
	return g.stale.Store(nowMs, t.key, bytes, t.storeCC)
}

// Dropped lists the stale copies whose bodies JS must release now.
func (g *Guard) Dropped() []uint32 { return g.stale.Dropped() }

// Abort reports that every caller of ticket id left (they aborted): the
// network request is to be cancelled, its flight is over (a new identical
// request starts a new one), and a probe it carried is abandoned. cancel is
// false for a ticket already finished.
func (g *Guard) Abort(id uint32) (cancel bool) {
	t, ok := g.tickets[id]
	if !ok {
		return false
	}
	g.settle(id, t, false)
	return true
}

// Coalescing reports whether identical GETs in flight share one request.
func (g *Guard) Coalescing() bool { return g.flights.Policy().Mode == mode.On }

// Quiet reports that no policy has anything to say about a GET with no
// request headers, and that an Uneventful answer to it would change
// nothing: the circuit is closed, the probe gate idle, no service is cooling
// down, the negative cache is empty and no stale copies are kept. While it
// holds, the shim may send such GETs without asking (coalescing them itself)
// and only report the answers that matter, through Adopt and Finish. It is
// the measured answer to the cost of two cold calls into Go per request
// (docs/performance.md).
func (g *Guard) Quiet() bool {
	return g.breaker.State() == (circuit.State{}) && g.gate.Idle() && g.cooldown.Len() == 0 &&
		g.neg.Len() == 0 && g.stale.Policy().Mode == mode.Off
}

// Uneventful reports that an answer with status (StatusOpaque included) to a
// plain GET sent while the guard is Quiet changes nothing, so the shim need
// not report it: it is no trip status (data-trip-statuses), no 429, no
// failure the negative cache keeps, and no missing answer. It depends on the
// policy only, not on the state.
func (g *Guard) Uneventful(status int) bool {
	if status == StatusOpaque {
		return true
	}
	cp := g.breaker.Policy()
	return status >= 100 && status <= 599 && status != 429 && !negcache.Failure(status) && !cp.Trips(status)
}

// Adopt gives a ticket to an in-scope request sent at sentMs without Begin
// while the guard was Quiet, so that its answer is handled by Finish like
// any other (a 429 retried once, a failure remembered). The strings may be
// transient.
func (g *Guard) Adopt(sentMs int64, method, url, headers string) uint32 {
	t, ok := g.ticketFor(method, url, headers)
	if !ok {
		return 0
	}
	t.sentMs = sentMs
	return g.track(t) // the shim counted it in network when it sent it
}

// InFlight is the number of requests between Begin and Finish.
func (g *Guard) InFlight() int { return len(g.tickets) }

// Operation names a mutation in the idempotency ledger
// (idempotency.Operation: the query hashed, no length refused) with its
// principal — the credentials mode and the Authorization header, from the
// Request frame's headers — so one user's pending key is never another's.
func Operation(method, url, headers string) string {
	var credentials, authorization string
	for _, h := range coalesce.ParseHeaders(headers) {
		switch h.Name {
		case ":credentials":
			credentials = h.Value
		case "authorization":
			authorization = h.Value
		}
	}
	return idempotency.Operation(method, url, idempotency.Principal(credentials, authorization))
}

// GivenKey is the caller's own Idempotency-Key in a Request frame's header
// block (names lower-cased by the shim, one "name: value" line each, a
// repeated header combined into one by fetch's Headers), verbatim; "" for
// none.
func GivenKey(headers string) string {
	const name = "idempotency-key: "
	i := strings.Index("\n"+headers, "\n"+name)
	if i < 0 {
		return ""
	}
	v, _, _ := strings.Cut(headers[i+len(name):], "\n")
	return v
}

// send tracks t, a request with method to url, and tells the caller to send it.
func (g *Guard) send(t *ticket, method, url string) Answer {
	id := g.track(t)
	probe := t.probe
	if t.scout != 0 {
		probe = t.scout | ScoutBit
	}
	return Answer{Kind: Send, Ticket: id, Flight: t.flight, Probe: probe, Keyed: g.Keyed(method, url)}
}

// track gives t a ticket until Finish (or Abort).
func (g *Guard) track(t *ticket) uint32 {
	if len(g.tickets) >= MaxInFlight {
		g.forgetOldest()
	}
	g.lastTicket++
	if g.lastTicket == 0 {
		g.lastTicket++
	}
	g.tickets[g.lastTicket] = t
	return g.lastTicket
}

func (g *Guard) forgetOldest() {
	var oldest uint32
	for id := range g.tickets {
		if oldest == 0 || id-g.lastTicket < oldest-g.lastTicket { // wrap-safe: smallest age
			oldest = id
		}
	}
	t := g.tickets[oldest]
	if t.flight != 0 {
		g.flights.Complete(t.flight)
	}
	if t.probe != 0 {
		g.gate.Abandoned(t.probe)
	}
	g.breaker.ScoutEnded(t.scout)
	delete(g.tickets, oldest)
	g.metrics.Add(metrics.Evicted)
}

func (g *Guard) open() Answer {
	s := g.breaker.State()
	g.metrics.Add(metrics.ShortCircuited)
	return Answer{Kind: Open, UntilMs: s.Until, Status: s.HTTPStatus}
}

// staleOr answers with the key's stale copy when there is one (and the
// stale fallback is on), else with a.
func (g *Guard) staleOr(nowMs int64, key string, a Answer) Answer {
	if key != "" && g.staleFallback {
		if c, ok := g.stale.Lookup(nowMs, key); ok {
			g.metrics.Add(metrics.StaleServed)
			return Answer{Kind: Stale, Copy: c, UntilMs: a.UntilMs, Status: a.Status}
		}
	}
	return a
}

// observeCircuit applies an answer to the circuit and the probe: the
// breaker sees every answer (its trip rule counts the successes too, and in
// the half-open phase the answer decides), the gate frees the probe's slot.
func (g *Guard) observeCircuit(nowMs int64, span circuit.Span, t *ticket, status int, retryAfter string) {
	if t.probe != 0 {
		if cp := g.breaker.Policy(); status == 0 || cp.Trips(status) {
			g.gate.Failed(t.probe)
		} else {
			g.gate.Succeeded(t.probe)
		}
	}
	mutation := t.key == "" // only a GET or HEAD has a key
	if cp := g.breaker.Policy(); mutation && t.probe == 0 && cp.Trips(status) {
		// A mutation's failure is first the caller's: its handler failed, or
		// the upstream dropped its one answer. It arms nothing by itself, so
		// one failed POST never blocks the reads of a healthy gateway; the
		// reads around it say whether the gateway is down.
		return
	}
	delay, ok := retryafter.Parse(retryAfter, nowMs)
	if !ok {
		delay = circuit.NoRetryAfter
	}
	span.Key = t.key // a GET's retry is the same request again (the trip rule's partial failures)
	span.Scout = t.scout
	g.observeBreaker(nowMs, span, status, delay)
}

// observeBreaker gives the breaker an answer. When that closes the circuit,
// what the negative cache learnt meanwhile is about the failure, not about
// the keys: it starts over. Only the end of an outage (the half-open probe
// came back) also keeps, for a while, a key that still fails from being
// asked again at once; a trip the breaker withdrew (open → closed: a
// success in the same burst, a rate limiter) was no outage, and the app's
// own retries of the rejected requests must reach the network.
func (g *Guard) observeBreaker(nowMs int64, span circuit.Span, status int, retryAfterMs int64) {
	before := g.breaker.Phase(nowMs)
	g.breaker.Observe(nowMs, span, status, retryAfterMs)
	if before != circuit.Closed && g.breaker.Phase(nowMs) == circuit.Closed {
		g.neg.Clear()
		if before == circuit.HalfOpen {
			g.neg.OutageEnded(nowMs)
		}
	}
	g.syncGate()
}

// Succeeded takes an in-scope answer that was not reported when it came (an
// Uneventful one on the quiet path), in flight during span: the trip rule
// counts successes that were in flight together with a failure, so the glue
// reports the latest one, with its span, before it reports a failure.
func (g *Guard) Succeeded(span circuit.Span) {
	g.observeBreaker(span.AnsweredMs, span, 200, circuit.NoRetryAfter)
}

// syncGate remembers the breaker version the gate has seen.
func (g *Guard) syncGate() { g.seen = g.breaker.Version() }
