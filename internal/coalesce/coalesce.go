// Package coalesce makes identical in-flight GETs share one network request.
//
// The JS glue computes the request's Key, then calls Join before starting:
// the first caller of a key is the leader (it sends the request, with its own
// AbortController, not tied to any caller's signal); later callers join the
// call in flight and wait for it. Every caller gets its own readable Response
// (JS clones the one answer per waiter). When the network answers or fails,
// Complete ends the call: the next caller starts a fresh one. Who waits,
// and who left, is the glue's to track (js/src/flights.ts): when every caller
// of a call aborted, it cancels the request and completes the call, so a new
// identical request starts afresh.
//
// Not safe for concurrent use.
package coalesce

import (
	"errors"

	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
	"github.com/gatewaycircuit/gatewaycircuit/policy/policyerr"
	"github.com/gatewaycircuit/gatewaycircuit/policy/text"
)

// DefaultIgnore are request headers that never count toward a key: tracing
// ids, different on every request, that do not change the answer.
var DefaultIgnore = []string{"traceparent", "tracestate", "baggage", "sentry-trace", "x-request-id", "x-correlation-id", "x-b3-traceid", "x-b3-spanid", "b3"}

// ErrInvalidPolicy is the sentinel for a Policy that fails Validate.
var ErrInvalidPolicy = errors.New("coalesce: invalid policy")

// Policy configures coalescing. The zero Policy is the default.
type Policy struct {
	// Mode is On (the default) or Off: off, every Join is a leader.
	Mode mode.Mode `json:"mode"`
	// Ignore lists the request headers, in lower case, that do not count
	// toward a key. Default DefaultIgnore; an empty, non-nil list ignores none.
	Ignore []string `json:"ignore"`
}

// WithDefaults returns p with every zero field set to its default.
func (p Policy) WithDefaults() Policy {
	p.Mode = p.Mode.Or(mode.On)
	if p.Ignore == nil {
		p.Ignore = DefaultIgnore
	}
	return p
}

// Validate reports the first bad field of a defaulted policy.
func (p Policy) Validate() error {
	if !p.Mode.In(mode.On, mode.Off) {
		return policyerr.New(ErrInvalidPolicy, "mode", "must be on or off")
	}
	for _, h := range p.Ignore {
		if h == "" || h != text.Lower(h) {
			return policyerr.New(ErrInvalidPolicy, "ignore", "header names must be non-empty and in lower case: "+h)
		}
	}
	return nil
}

type call struct {
	id  uint32
	key string
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
	if c, ok := t.byKey[key]; ok && t.policy.Mode != mode.Off {
		return c.id, false
	}
	t.lastID++
	if t.lastID == 0 { // 0 means "no call"
		t.lastID++
	}
	c := &call{id: t.lastID, key: key}
	t.byID[c.id] = c
	if t.policy.Mode != mode.Off {
		t.byKey[key] = c
	}
	return c.id, true
}

// Complete ends call id: the network answered or failed, or every caller
// left. A late or repeated Complete changes nothing.
func (t *Table) Complete(id uint32) {
	if c, ok := t.byID[id]; ok {
		delete(t.byID, c.id)
		if t.byKey[c.key] == c {
			delete(t.byKey, c.key)
		}
	}
}

// Forget makes every call in flight unjoinable (a user logged out): the
// next caller of a key starts afresh. The calls still end with Complete.
func (t *Table) Forget() { clear(t.byKey) }

// InFlight is the number of calls not yet completed.
func (t *Table) InFlight() int { return len(t.byID) }
