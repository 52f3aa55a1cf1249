// Package circuit is the gateway circuit: when the API gateway is down (it
// answers 502/503/504 by default, and nothing else), the circuit is armed
// until a deadline, and while it is armed every in-scope request is refused
// before the network.
//
// # Phases
//
// A circuit is closed, open (armed: now < Until) or half-open (the TTL is
// over but the outage is remembered until HalfOpenUntil). In the half-open
// phase the next answer decides: a success closes the circuit, a failure
// (a trip status, or no answer at all) re-opens it for the TTL doubled per
// failure in a row (Strikes): TTL, 2×TTL, 4×TTL… capped at MaxTTLMs. Package
// probe lets only one request of the tab be that answer. The state, with the
// strikes and the half-open deadline, is persisted through a store.Store
// (sessionStorage in the browser), so F5 after the TTL sends one probe, not
// every query, and a failed probe after F5 still doubles the TTL.
//
// # The trip rule: a rate limiter is not an outage
//
// A gateway that is down fails every request; a rate limiter (nginx's
// limit_req answers 503) or a flaky upstream fails some of them, and the
// others succeed. The circuit is for the first case only. Every in-scope
// answer is passed to Observe with its Span (when the request was sent, when
// it was answered): a trip status is a failure, any other HTTP status
// (2xx–4xx, 500, 429…) is a success (the gateway answered for the app), and
// a request with no answer (status 0) counts only in the half-open phase.
//
// What tells the two apart is concurrency, not recency. Two requests were
// in flight together when each was sent before the other was answered, or
// they were sent as one burst, within TripBurstMs (250 ms) of each other
// (Span.Together). With N = TripMinFailures (1) and W = TripWindowMs (3 s):
//
//   - a failure arms the circuit at once, unless a success of a request in
//     flight together with it was seen (the gateway is answering: a limiter
//     rejected part of a burst), and only when it is at least the N-th
//     failure within W with no success between (N = 1: the first, as a dead
//     gateway answers on the first page load);
//   - a success of a request in flight together with the failure that
//     armed withdraws the trip (the circuit closes again), and every
//     request that failed while it was open failed partially: a limiter
//     rejects the fastest few of a page's queries before the first accepted
//     one has come back;
//   - a success that ended before the failing request was sent is history:
//     it neither keeps the circuit closed nor withdraws a trip. An app in
//     use whose gateway dies arms on the first failure, and F5 is blocked;
//   - a request that failed partially stays a partial failure: its failure
//     again (the app retrying it, by the Span's Key), within MaxTTLMs,
//     arms nothing (not TTLMs: the first open period is shorter than
//     TanStack's third retry). One upstream behind the gateway is down and the others
//     answer: its queries' retries come alone, with nothing in flight
//     together, and would otherwise arm the circuit for every upstream;
//   - while the circuit is open, failures change nothing (the stragglers of
//     the burst that armed it);
//   - an open period the rule armed in this page has one scout
//     (Breaker.Scout): the first GET or HEAD whose key the period has not
//     seen (failed in it, or answered open in it) goes to the network;
//     while it is out, every other key but a failed one waits for its
//     answer, and otherwise the seen keys are answered open. The scout's
//     success (any answer but a trip status) withdraws the trip as the
//     burst's does: one upstream behind the gateway is down, its queries
//     armed the circuit, and the app then asks another upstream, which
//     answers. A scout's failure (a trip status, no answer, or none within
//     the probe timeout) ends the period's scouting: the keys that waited
//     for it, and every key after, are answered open until the period ends
//     (its TTL, a withdrawal, Clear, Load). A section of new queries opened
//     on a dead gateway costs one request, where TanStack's defaults send
//     four per query, and an outage met by a stream of new keys costs one
//     request, not one per key in a row. A scout that ends with nothing to
//     observe (aborted, opaque) frees the slot once: the next new key
//     scouts; after a second such end the period has no scouts. The
//     scouting outlives the page (ScoutKey): after F5 the keys the period
//     has seen are answered open, and a reload during an outage sends
//     nothing; a page of other keys (the healthy section on a page of its
//     own) sends its first as the scout. A circuit armed by Arm or re-armed
//     by a failed probe has no scouts.
//
// A 503 with a Retry-After of at least 1 s arms for that long (capped at
// MaxTTLMs) instead of the TTL, by the same rule. The rule keeps, in
// memory, the span of the latest success, the failure run (its start and
// length), the span of the failure that armed, and, for the open period it
// armed, the keys seen (at most MaxSeenKeys) and the scout in flight.
//
// # Time
//
// Time is always passed in as Unix milliseconds: the core never reads a
// clock and never sleeps. Every read clamps what it holds to now + MaxTTLMs,
// in memory as well as from storage, so a clock that jumps back cannot
// stretch an outage. A Breaker is not safe for concurrent use; the wasm
// build calls it from one thread, and host callers must serialise.
package circuit

import (
	"errors"
	"strconv"

	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
	"github.com/gatewaycircuit/gatewaycircuit/policy/lru"
)

// ErrInvalidArm is the sentinel for an Arm call with a status or TTL it
// cannot honour.
var ErrInvalidArm = errors.New("circuit: invalid arm")

// ArmError says what was wrong with an Arm call. It unwraps to ErrInvalidArm.
type ArmError struct{ Reason string }

func (e *ArmError) Error() string { return "circuit: invalid arm: " + e.Reason }

// Unwrap makes errors.Is(err, ErrInvalidArm) true.
func (e *ArmError) Unwrap() error { return ErrInvalidArm }

// State is the stored circuit. The zero State is closed.
type State struct {
	Until      int64 `json:"until"`      // Unix ms; open while now < Until
	HTTPStatus int   `json:"httpStatus"` // the failure that armed it
	// Strikes counts the failed probes in a row; the open period after the
	// k-th is min(TTL × 2^k, MaxTTL). Optional in storage (absent = 0).
	Strikes int `json:"strikes,omitempty"`
	// HalfOpenUntil (Unix ms): from Until to this, the circuit is half-open.
	// Optional in storage (absent = 0: closed at Until, the seed format).
	HalfOpenUntil int64 `json:"halfOpenUntil,omitempty"`
}

// Phase is where a circuit stands at a given time.
type Phase int

const (
	Closed   Phase = iota // requests go to the network
	Open                  // armed: requests are refused before the network
	HalfOpen              // the TTL is over: the next answer decides (one probe)
)

var phaseNames = [...]string{"closed", "open", "halfOpen"}

func (p Phase) String() string {
	if p >= 0 && int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return "Phase(" + strconv.Itoa(int(p)) + ")"
}

// Phase is the phase of s at nowMs.
func (s State) Phase(nowMs int64) Phase {
	switch {
	case s.HTTPStatus == 0:
		return Closed
	case nowMs < s.Until:
		return Open
	case nowMs < s.HalfOpenUntil:
		return HalfOpen
	}
	return Closed
}

// Armed reports whether s refuses requests at nowMs (the Open phase).
func (s State) Armed(nowMs int64) bool { return s.Phase(nowMs) == Open }

// clamp limits s to what may be believed at nowMs: Until at most
// now + maxTTL, HalfOpenUntil at most maxTTL after Until, Strikes at most
// MaxStrikes. It is applied to every read, from storage or from memory.
func (s State) clamp(nowMs, maxTTLMs int64) State {
	if s.HTTPStatus == 0 {
		return s
	}
	if limit := nowMs + maxTTLMs; s.Until > limit {
		s.Until = limit
	}
	if limit := s.Until + maxTTLMs; s.HalfOpenUntil > limit {
		s.HalfOpenUntil = limit
	}
	s.Strikes = min(max(s.Strikes, 0), MaxStrikes)
	return s
}

// Action is what a reader must do to the stored entry after reading it.
type Action int

const (
	ActionNone    Action = iota // nothing stored
	ActionKeep                  // valid and open or half-open: leave it
	ActionRemove                // malformed or closed: delete it
	ActionRewrite               // clamped (see State.clamp): store the clamped State
)

var actionNames = [...]string{"none", "keep", "remove", "rewrite"}

func (a Action) String() string {
	if a >= 0 && int(a) < len(actionNames) {
		return actionNames[a]
	}
	return "Action(" + strconv.Itoa(int(a)) + ")"
}

// Restore interprets a stored entry (present == false when the key is absent)
// at nowMs. It is the one reading rule; the JS shim implements the same rule
// and both are checked against testdata/payload_vectors.json. A closed entry
// (malformed, or past both Until and HalfOpenUntil) is returned as the zero
// State with ActionRemove.
func Restore(raw string, present bool, nowMs, maxTTLMs int64) (State, Action) {
	if !present {
		return State{}, ActionNone
	}
	read, err := ParsePayload(raw)
	if err != nil {
		return State{}, ActionRemove
	}
	s := read.clamp(nowMs, maxTTLMs)
	switch {
	case s.Phase(nowMs) == Closed:
		return State{}, ActionRemove
	case s != read:
		return s, ActionRewrite
	}
	return s, ActionKeep
}

// Decision is the answer to "may this request go to the network?".
type Decision int

const (
	Pass  Decision = iota // out of scope: not guarded, not observed
	Allow                 // in scope and closed or half-open: send it, then Observe the answer
	Block                 // in scope and open: answer with a synthetic 503
)

// Breaker holds the circuit for one tab.
type Breaker struct {
	policy  Policy
	store   store.Store
	state   State
	phase   Phase  // the phase last seen, so that expiry counts as a change
	version uint32 // bumped on every change of state or phase, so callers can notify
	lastErr error  // last storage failure; storage failing never fails a call

	// The trip rule's memory (see the package comment); never persisted.
	lastSuccess Span  // the success answered last; zero = none
	runStartMs  int64 // first failure of the current run (no success since)
	runFailures int   // failures in the run, while within TripWindowMs of runStartMs
	tripped     Span  // the failure that armed the circuit; zero = armed otherwise, or closed
	// partial holds the keys of requests that failed partially, and when
	// (at most MaxPartialKeys: the oldest goes).
	partial *lru.List[int64]
	// The scout of an open period the trip rule armed (ruled; see Scout),
	// in this page or one before it (ScoutKey): seen holds the keys (keyOf)
	// failed in it (with when, Unix ms) or answered open in it (0), at most
	// MaxSeenKeys; scout is the scout in flight (0 = none), sent at
	// scoutMs; lastScout names the last one. scouted: the period's scout
	// failed (no more); freed: a scout of the period ended with nothing to
	// observe and freed the slot (once). savedScouts: what ScoutKey holds
	// as this page wrote or read it ("" = nothing).
	seen                  *lru.List[int64]
	scout                 uint32
	scoutMs               int64
	lastScout             uint32
	ruled, scouted, freed bool
	savedScouts           string
}

// MaxPartialKeys bounds the keys the trip rule remembers as failed partially.
const MaxPartialKeys = 64

// MaxSeenKeys bounds the keys an open period remembers as failed or
// answered open (Scout). One forgotten may be asked once more by a scout.
const MaxSeenKeys = 64

// Span is one request in flight: when, in Unix ms, from the fetch call
// (SentMs) to its answer (AnsweredMs), and which (Key: what the app asks
// again when it retries it, a GET's URL; "" for none). Scout is the id
// Breaker.Scout gave the request, 0 for none. A request retried after a
// wait is sent again: its span starts at the retry.
type Span struct {
	SentMs, AnsweredMs int64
	Key                string
	Scout              uint32
}

// Together reports whether s and o were in flight together: each was sent
// before the other was answered, or both were sent within burstMs of each
// other (one burst: Policy.TripBurstMs). Two requests one after the other,
// further apart, are not: the first is history for the second.
func (s Span) Together(o Span, burstMs int64) bool {
	if s.SentMs == 0 && s.AnsweredMs == 0 || o.SentMs == 0 && o.AnsweredMs == 0 {
		return false
	}
	d := s.SentMs - o.SentMs
	return s.SentMs < o.AnsweredMs && o.SentMs < s.AnsweredMs || (d < burstMs && -d < burstMs)
}

// New returns a closed Breaker for p (defaulted, then validated).
func New(p Policy, s store.Store) (*Breaker, error) {
	p = p.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Breaker{policy: p, store: s, partial: lru.New[int64](), seen: lru.New[int64]()}, nil
}

// Policy returns the defaulted policy in force.
func (b *Breaker) Policy() Policy { return b.policy }

// Load restores the stored circuit, as a page does when it starts.
func (b *Breaker) Load(nowMs int64) State {
	raw, ok, err := b.store.Get(StorageKey)
	if err != nil {
		b.lastErr = err
		ok = false // unreadable storage: closed, keep working
	}
	s, action := Restore(raw, ok, nowMs, b.policy.MaxTTLMs)
	switch action {
	case ActionRemove:
		b.remember(b.store.Delete(StorageKey))
	case ActionRewrite:
		b.remember(b.store.Set(StorageKey, s.Payload()))
	}
	scouts, found, err := b.store.Get(ScoutKey)
	b.remember(err)
	b.tripped = Span{} // a trip of the page that is gone cannot be withdrawn by its burst
	b.forgetScouts()
	b.savedScouts = ""
	b.set(nowMs, s, false)
	b.loadScouts(scouts, found && err == nil)
	return s
}

// Read returns the state at nowMs and whether it is open (armed). A circuit
// past its half-open period is closed and removed.
func (b *Breaker) Read(nowMs int64) (State, bool) {
	b.settle(nowMs)
	return b.state, b.phase == Open
}

// Phase returns the phase at nowMs.
func (b *Breaker) Phase(nowMs int64) Phase {
	b.settle(nowMs)
	return b.phase
}

// State returns the state as held, without looking at the time.
func (b *Breaker) State() State { return b.state }

// Decide answers for a request to the absolute URL url at nowMs.
func (b *Breaker) Decide(nowMs int64, url string) Decision {
	if !b.policy.InScope(url) {
		return Pass
	}
	if b.Phase(nowMs) == Open {
		return Block
	}
	return Allow
}

// ScoutDecision is Scout's answer for a request the open circuit refuses.
type ScoutDecision int

const (
	ScoutNone ScoutDecision = iota // answer it as open
	ScoutSend                      // send it as the scout; its span carries the id
	ScoutWait                      // wait for scout id's answer, then decide again
)

var scoutNames = [...]string{"none", "send", "wait"}

func (d ScoutDecision) String() string {
	if d >= 0 && int(d) < len(scoutNames) {
		return scoutNames[d]
	}
	return "ScoutDecision(" + strconv.Itoa(int(d)) + ")"
}

// Scout decides, while the circuit is open, for a request with key (a
// GET's, "" for none) at nowMs: whether it goes to the network as the
// open period's scout (package comment, the trip rule). Only an open period
// the trip rule armed has a scout; a scout unanswered for timeoutMs has
// failed. Every key it answers for is seen from then on.
func (b *Breaker) Scout(nowMs int64, key string, timeoutMs int64) (ScoutDecision, uint32) {
	if key == "" || !b.ruled || b.Phase(nowMs) != Open {
		return ScoutNone, 0
	}
	d, id := b.scoutFor(nowMs, keyOf(key), timeoutMs)
	b.saveScouts()
	return d, id
}

func (b *Breaker) scoutFor(nowMs int64, key string, timeoutMs int64) (ScoutDecision, uint32) {
	if nowMs < b.scoutMs { // the clock went back: the timeout counts from now
		b.scoutMs = nowMs
	}
	if b.scout != 0 && nowMs-b.scoutMs >= timeoutMs { // no answer in time: the scout failed
		b.scout, b.scouted = 0, true
	}
	failedMs, seen := b.seen.Peek(key)
	switch {
	case failedMs != 0:
		return ScoutNone, 0 // it failed in this open period: its upstream is down, whatever the scout finds
	case b.scout != 0:
		b.see(key, 0)
		return ScoutWait, b.scout // then it is seen: open, unless the scout closed the circuit
	case seen || b.scouted:
		return ScoutNone, 0 // the period's one scout failed: new keys too are answered open
	}
	b.see(key, 0)
	b.lastScout++
	if b.lastScout == 0 {
		b.lastScout++
	}
	b.scout, b.scoutMs = b.lastScout, nowMs
	return ScoutSend, b.scout
}

// ScoutEnded reports that scout id ended without an answer to observe (its
// caller aborted, or the answer was opaque): the first time in an open
// period another request may scout; the second time the period's scouting
// ends, so that aborted scouts cannot put new keys on the network in a row.
func (b *Breaker) ScoutEnded(id uint32) {
	if id != 0 && id == b.scout {
		b.scout = 0
		b.scouted, b.freed = b.freed, true
		b.saveScouts()
	}
}

// see remembers key (keyOf) as seen in the open period: failed in it at failedMs,
// or 0 for answered open (which does not forget a failure).
func (b *Breaker) see(key string, failedMs int64) {
	if key == "" {
		return
	}
	if was, _ := b.seen.Peek(key); failedMs == 0 {
		failedMs = was
	}
	b.seen.Put(key, failedMs)
	if b.seen.Len() > MaxSeenKeys {
		b.seen.RemoveOldest()
	}
}

// forgetScouts ends the open period's scouting (what is stored of it goes
// with the next saveScouts).
func (b *Breaker) forgetScouts() {
	b.seen.Clear()
	b.scout, b.ruled, b.scouted, b.freed = 0, false, false, false
}

// Observe takes the answer to an in-scope request at nowMs: when it was in
// flight (span; span.AnsweredMs is nowMs but for an answer reported late),
// its status (0 when it got none) and the delay its Retry-After asked for
// (NoRetryAfter when absent or malformed). Call it for every in-scope
// answer, successes included: the trip rule needs them. It applies the trip
// rule and the half-open rule (package comment) and reports whether the
// state changed.
func (b *Breaker) Observe(nowMs int64, span Span, status int, retryAfterMs int64) bool {
	phase := b.Phase(nowMs)
	scout := span.Scout != 0 && span.Scout == b.scout
	if scout {
		// Its answer is the period's one: a success withdraws the trip, a
		// failure or no answer ends the scouting (its key seen from then on).
		// Either way the period scouts no more: what is stored of it goes.
		b.scout, b.scouted = 0, true
		b.saveScouts()
	}
	switch {
	case b.policy.Trips(status):
		return b.failed(nowMs, span, phase, status, retryAfterMs)
	case validStatus(status):
		return b.succeeded(nowMs, span, phase, scout)
	case phase == HalfOpen: // no answer at all while probing: still down
		return b.failed(nowMs, span, phase, b.state.HTTPStatus, NoRetryAfter)
	}
	return false // no answer: a network error, an abort or CORS, not the gateway's word
}

func (b *Breaker) succeeded(nowMs int64, span Span, phase Phase, scout bool) bool {
	if span.AnsweredMs >= b.lastSuccess.AnsweredMs {
		b.lastSuccess = span
	}
	b.runFailures = 0
	switch {
	case phase == HalfOpen:
		b.set(nowMs, State{}, true) // the probe came back: closed
		return true
	case phase == Open && b.ruled && (scout || span.Together(b.tripped, b.policy.TripBurstMs)):
		// Part of a burst that also succeeded, or the gateway answered the
		// scout: withdrawn, and what failed in the open period failed
		// partially after all.
		b.failedPartially(nowMs, keyOf(b.tripped.Key))
		for _, key := range b.seen.Keys() {
			if failedMs, _ := b.seen.Peek(key); failedMs != 0 {
				b.failedPartially(nowMs, key)
			}
		}
		b.set(nowMs, State{}, true)
		return true
	}
	return false
}

func (b *Breaker) failed(nowMs int64, span Span, phase Phase, status int, retryAfterMs int64) bool {
	key := keyOf(span.Key)
	switch phase {
	case Open:
		if b.ruled {
			b.see(key, nowMs) // a straggler of the burst that armed it, or a failed scout
			b.saveScouts()
		}
		return false
	case HalfOpen:
		strikes := min(b.state.Strikes+1, MaxStrikes)
		b.open(nowMs, status, b.ttl(status, retryAfterMs, b.policy.probeTTL(strikes)), strikes)
		return true
	}
	if b.runFailures == 0 || !b.within(nowMs, b.runStartMs) {
		b.runStartMs, b.runFailures = nowMs, 0
	}
	if at, ok := b.partial.Peek(key); ok && key != "" && nowMs-at < b.policy.MaxTTLMs && at-nowMs < b.policy.MaxTTLMs {
		return false // the same partial failure again: the app retrying what one upstream refuses
	}
	b.runFailures++
	if span.Together(b.lastSuccess, b.policy.TripBurstMs) {
		b.failedPartially(nowMs, key)
		return false // partial failure: the gateway is answering
	}
	if b.runFailures < b.policy.TripMinFailures {
		return false
	}
	b.open(nowMs, status, b.ttl(status, retryAfterMs, b.policy.TTLMs), 0)
	b.tripped, b.ruled = span, true
	b.see(key, nowMs)
	b.saveScouts()
	return true
}

// failedPartially remembers key (keyOf) as failed while the gateway answered others.
func (b *Breaker) failedPartially(nowMs int64, key string) {
	if key == "" {
		return
	}
	b.partial.Put(key, nowMs)
	if b.partial.Len() > MaxPartialKeys {
		b.partial.RemoveOldest()
	}
}

// ttl is the open period for a failure: a 503's Retry-After of at least 1 s
// when it has one, else base; capped at MaxTTLMs.
func (b *Breaker) ttl(status int, retryAfterMs, base int64) int64 {
	if status == 503 && retryAfterMs >= 1000 {
		base = retryAfterMs
	}
	return min(base, b.policy.MaxTTLMs)
}

// within reports whether t is within TripWindowMs of nowMs, either way:
// a time "in the future" (the clock went back) counts only up to W.
func (b *Breaker) within(nowMs, t int64) bool {
	d := nowMs - t
	return d < b.policy.TripWindowMs && -d < b.policy.TripWindowMs
}

// open arms the circuit for ttlMs with the given strikes.
func (b *Breaker) open(nowMs int64, status int, ttlMs int64, strikes int) {
	s := State{Until: nowMs + ttlMs, HTTPStatus: status, Strikes: strikes}
	s.HalfOpenUntil = s.Until + b.policy.HalfOpenMs
	b.tripped, b.runFailures = Span{}, 0
	b.forgetScouts() // a new open period
	b.set(nowMs, s, true)
}

// Arm arms the circuit for ttlMs (0 = the policy's TTL, capped at MaxTTLMs),
// replacing any current state: the app's own decision, which the trip rule
// never withdraws.
func (b *Breaker) Arm(nowMs int64, status int, ttlMs int64) (State, error) {
	if !validStatus(status) {
		return b.state, &ArmError{"httpStatus " + strconv.Itoa(status) + " is not 100-599"}
	}
	switch {
	case ttlMs < 0:
		return b.state, &ArmError{"ttlMs must be >= 0"}
	case ttlMs == 0:
		ttlMs = b.policy.TTLMs
	case ttlMs > b.policy.MaxTTLMs:
		ttlMs = b.policy.MaxTTLMs
	}
	b.open(nowMs, status, ttlMs, 0)
	return b.state, nil
}

// Clear closes the circuit: the user asked for a fresh attempt. The strikes
// and the half-open memory go too.
func (b *Breaker) Clear() {
	b.runFailures = 0
	if b.state != (State{}) {
		b.set(0, State{}, true) // the zero State is closed at any time
		return
	}
	// Nothing in memory, but storage may hold what another writer put there.
	b.remember(b.store.Delete(StorageKey))
}

// Version changes whenever the state or the phase does.
func (b *Breaker) Version() uint32 { return b.version }

// LastStorageError is the last failure of the store, or nil. It is
// diagnostics only: a failing store leaves the circuit working in memory.
func (b *Breaker) LastStorageError() error { return b.lastErr }

// settle applies the time: the clamp of every read, and the end of the
// half-open period (closed and removed).
func (b *Breaker) settle(nowMs int64) {
	s := b.state.clamp(nowMs, b.policy.MaxTTLMs)
	if s.Phase(nowMs) == Closed {
		s = State{}
	}
	b.set(nowMs, s, true)
}

// set is the one place the state changes; it persists a changed state when
// persist is set, and counts a change of state or phase.
func (b *Breaker) set(nowMs int64, s State, persist bool) {
	phase := s.Phase(nowMs)
	if s == b.state {
		if phase != b.phase {
			b.phase = phase
			b.version++
			b.saveScouts()
		}
		return
	}
	b.state, b.phase = s, phase
	b.version++
	if s == (State{}) {
		b.tripped, b.ruled = Span{}, false
	}
	b.saveScouts()
	if !persist {
		return
	}
	if s == (State{}) {
		b.remember(b.store.Delete(StorageKey))
	} else {
		b.remember(b.store.Set(StorageKey, s.Payload()))
	}
}

func (b *Breaker) remember(err error) {
	if err != nil {
		b.lastErr = err
	}
}
