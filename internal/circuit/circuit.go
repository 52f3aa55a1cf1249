// Package circuit is the gateway circuit: when the API gateway answers with a
// trip status (502/503/504 by default) the circuit is armed until a deadline,
// and while it is armed every in-scope request is refused before the network.
//
// The state, {until, httpStatus}, is persisted through a store.Store so that
// it survives a page reload (sessionStorage in the browser). Time is always
// passed in as Unix milliseconds: the core never reads a clock and never
// sleeps. A Breaker is not safe for concurrent use; the wasm build calls it
// from one thread, and host callers must serialise.
package circuit

import (
	"errors"
	"strconv"

	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
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
	Until      int64 `json:"until"`      // Unix ms; armed while now < Until
	HTTPStatus int   `json:"httpStatus"` // the failure that armed it
}

// Armed reports whether s refuses requests at nowMs.
func (s State) Armed(nowMs int64) bool { return s.HTTPStatus != 0 && nowMs < s.Until }

// Action is what a reader must do to the stored entry after reading it.
type Action int

const (
	ActionNone    Action = iota // nothing stored
	ActionKeep                  // valid and armed: leave it
	ActionRemove                // malformed or expired: delete it
	ActionRewrite               // armed beyond MaxTTL: store the clamped State
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
// and both are checked against testdata/payload_vectors.json.
func Restore(raw string, present bool, nowMs, maxTTLMs int64) (State, Action) {
	if !present {
		return State{}, ActionNone
	}
	s, err := ParsePayload(raw)
	if err != nil || !s.Armed(nowMs) {
		return State{}, ActionRemove
	}
	if limit := nowMs + maxTTLMs; s.Until > limit {
		s.Until = limit
		return s, ActionRewrite
	}
	return s, ActionKeep
}

// Decision is the answer to "may this request go to the network?".
type Decision int

const (
	Pass  Decision = iota // out of scope: not guarded, not observed
	Allow                 // in scope and closed: send it, then Observe the status
	Block                 // in scope and armed: answer with a synthetic 503
)

// Breaker holds the circuit for one tab.
type Breaker struct {
	policy  Policy
	store   store.Store
	state   State
	version uint32 // bumped on every change of state, so callers can notify
	lastErr error  // last storage failure; storage failing never fails a call
}

// New returns a closed Breaker for p (defaulted, then validated).
func New(p Policy, s store.Store) (*Breaker, error) {
	p = p.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Breaker{policy: p, store: s}, nil
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
	b.set(s, false)
	return s
}

// Read returns the state at nowMs; an expired circuit is closed and removed.
func (b *Breaker) Read(nowMs int64) (State, bool) {
	b.expire(nowMs)
	return b.state, b.state.Armed(nowMs)
}

// State returns the state as held, without expiring it.
func (b *Breaker) State() State { return b.state }

// Decide answers for a request to the absolute URL url at nowMs.
func (b *Breaker) Decide(nowMs int64, url string) Decision {
	if !b.policy.InScope(url) {
		return Pass
	}
	b.expire(nowMs)
	if b.state.Armed(nowMs) {
		return Block
	}
	return Allow
}

// Observe takes the status of an in-scope response and arms the circuit on a
// trip status. It reports whether the state changed. An armed circuit is not
// extended by the stragglers of the burst that armed it.
func (b *Breaker) Observe(nowMs int64, status int) bool {
	if !b.policy.Trips(status) {
		return false
	}
	b.expire(nowMs)
	if b.state.Armed(nowMs) {
		return false
	}
	b.set(State{Until: nowMs + b.policy.TTLMs, HTTPStatus: status}, true)
	return true
}

// Arm arms the circuit for ttlMs (0 = the policy's TTL, capped at MaxTTLMs),
// replacing any current state.
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
	b.set(State{Until: nowMs + ttlMs, HTTPStatus: status}, true)
	return b.state, nil
}

// Clear closes the circuit: the user asked for a fresh attempt.
func (b *Breaker) Clear() {
	if b.state != (State{}) {
		b.set(State{}, true)
		return
	}
	// Nothing in memory, but storage may hold what another writer put there.
	b.remember(b.store.Delete(StorageKey))
}

// Version changes whenever the state does.
func (b *Breaker) Version() uint32 { return b.version }

// LastStorageError is the last failure of the store, or nil. It is
// diagnostics only: a failing store leaves the circuit working in memory.
func (b *Breaker) LastStorageError() error { return b.lastErr }

func (b *Breaker) expire(nowMs int64) {
	if b.state != (State{}) && !b.state.Armed(nowMs) {
		b.set(State{}, true)
	}
}

// set is the one place the state changes.
func (b *Breaker) set(s State, persist bool) {
	if s == b.state {
		return
	}
	b.state = s
	b.version++
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
