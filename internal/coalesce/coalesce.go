// Package coalesce makes identical in-flight GETs share one network request.
//
// The JS glue computes the request's Key, then calls Join before starting:
// the first caller of a key is the leader (it sends the request, with its own
// AbortController, not tied to any caller's signal); later callers join the
// call in flight and wait for it. Every caller gets its own readable Response
// (JS clones the one answer per waiter). When the network answers or fails,
// Complete ends the call: the next caller starts a fresh one.
//
// A caller that aborts calls Leave: it stops waiting, the others go on. The
// network request is cancelled only when the last waiter has left and the
// policy does not say FinishAbandoned (the default cancels it: with nobody
// waiting, the answer would be read by no one, and a single caller's abort
// keeps its usual meaning). With FinishAbandoned the call runs to its end and
// stays joinable, which keeps its answer for the stale and negative caches.
//
// Not safe for concurrent use.
package coalesce

import (
	"errors"

	"github.com/gatewaycircuit/gatewaycircuit/internal/policyerr"
)

// DefaultIgnore are request headers that never count toward a key: tracing
// ids, different on every request, that do not change the answer.
var DefaultIgnore = []string{"traceparent", "tracestate", "baggage", "sentry-trace", "x-request-id", "x-correlation-id", "x-b3-traceid", "x-b3-spanid", "b3"}

// ErrInvalidPolicy is the sentinel for a Policy that fails Validate.
var ErrInvalidPolicy = errors.New("coalesce: invalid policy")

// Policy configures coalescing. The zero Policy is the default.
type Policy struct {
	// Disabled turns coalescing off: every Join is a leader.
	Disabled bool `json:"disabled"`
	// Ignore lists the request headers, in lower case, that do not count
	// toward a key. Default DefaultIgnore; an empty, non-nil list ignores none.
	Ignore []string `json:"ignore"`
	// FinishAbandoned lets a call whose waiters all left run to its end
	// instead of being cancelled.
	FinishAbandoned bool `json:"finishAbandoned"`
}

// WithDefaults returns p with every zero field set to its default.
func (p Policy) WithDefaults() Policy {
	if p.Ignore == nil {
		p.Ignore = DefaultIgnore
	}
	return p
}

// Validate reports the first bad field of a defaulted policy.
func (p Policy) Validate() error {
	for _, h := range p.Ignore {
		if h == "" || h != lower(h) {
			return policyerr.New(ErrInvalidPolicy, "ignore", "header names must be non-empty and in lower case: "+h)
		}
	}
	return nil
}

type call struct {
	id      uint32
	key     string
	waiters int // callers still waiting, the leader included
}

// Table holds the calls in flight of one tab.
type Table struct {
	policy Policy
	byKey  map[string]*call // joinable calls
	byID   map[uint32]*call // every call in flight, joinable or not
	lastID uint32
}

// New returns an empty Table for p (defaulted, then validated).
func New(p Policy) (*Table, error) {
	p = p.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Table{policy: p, byKey: map[string]*call{}, byID: map[uint32]*call{}}, nil
}

// Policy returns the defaulted policy in force.
func (t *Table) Policy() Policy { return t.policy }

// Join registers a caller for key. The leader (the first caller) starts the
// network request; the others wait for call id.
func (t *Table) Join(key string) (id uint32, leader bool) {
	if c, ok := t.byKey[key]; ok && !t.policy.Disabled {
		c.waiters++
		return c.id, false
	}
	t.lastID++
	if t.lastID == 0 { // 0 means "no call"
		t.lastID++
	}
	c := &call{id: t.lastID, key: key, waiters: 1}
	t.byID[c.id] = c
	if !t.policy.Disabled {
		t.byKey[key] = c
	}
	return c.id, true
}

// Leave takes a waiter of call id off (its caller aborted). cancel says the
// network request must now be aborted: nobody waits and the policy does not
// finish abandoned calls. A cancelled call is over; Complete is not needed.
func (t *Table) Leave(id uint32) (cancel bool) {
	c, ok := t.byID[id]
	if !ok || c.waiters == 0 {
		return false
	}
	c.waiters--
	if c.waiters > 0 || t.policy.FinishAbandoned {
		return false
	}
	t.end(c)
	return true
}

// Complete ends call id (the network answered or failed) and returns how many
// callers still wait for its answer.
func (t *Table) Complete(id uint32) (waiters int) {
	c, ok := t.byID[id]
	if !ok {
		return 0
	}
	t.end(c)
	return c.waiters
}

// Waiters is the number of callers waiting for call id.
func (t *Table) Waiters(id uint32) int {
	if c, ok := t.byID[id]; ok {
		return c.waiters
	}
	return 0
}

// Len is the number of calls in flight.
func (t *Table) Len() int { return len(t.byID) }

func (t *Table) end(c *call) {
	delete(t.byID, c.id)
	if t.byKey[c.key] == c {
		delete(t.byKey, c.key)
	}
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
