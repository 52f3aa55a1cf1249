// Package negcache is the negative cache: a GET that failed (network error or
// 5xx) is remembered per key, and calls for that key inside the window do not
// reach the network (they get the stale copy, or the failure again).
//
// The window for the n-th failure in a row of a key is
//
//	FirstUncachedMs (5 s)      for the first failure when there is no cached value to show
//	BackoffMs[min(k, len-1)]   otherwise (30 s, 60 s, 120 s, 120 s, ...)
//
// where k counts the failures that used the schedule. A failure reported
// while the key is inside its window (a straggler) changes nothing. A success
// or Clear forgets the key; so does a key quiet for the longest backoff after
// its window ended.
//
// The table is bounded by MaxKeys (1,000): when full, the key that failed
// least recently is forgotten, and Evicted counts it. Not safe for concurrent
// use.
package negcache

import (
	"errors"
	"slices"

	"github.com/gatewaycircuit/gatewaycircuit/internal/lru"
	"github.com/gatewaycircuit/gatewaycircuit/internal/policyerr"
)

// Defaults, applied in one place: Policy.WithDefaults.
const (
	DefaultFirstUncachedMs = 5_000
	DefaultMaxKeys         = 1_000
)

// DefaultBackoffMs is the schedule of windows for consecutive failures.
var DefaultBackoffMs = []int64{30_000, 60_000, 120_000}

// ErrInvalidPolicy is the sentinel for a Policy that fails Validate.
var ErrInvalidPolicy = errors.New("negcache: invalid policy")

// Policy configures the negative cache. The zero Policy is the default.
type Policy struct {
	// Disabled turns the negative cache off.
	Disabled bool `json:"disabled"`
	// BackoffMs are the windows for consecutive failures; the last one
	// repeats. Default 30 000, 60 000, 120 000.
	BackoffMs []int64 `json:"backoffMs"`
	// FirstUncachedMs is the window for a first failure when no cached value
	// can be shown instead: short, since the user sees an error. Default 5 000.
	FirstUncachedMs int64 `json:"firstUncachedMs"`
	// MaxKeys bounds the table. Default 1 000.
	MaxKeys int `json:"maxKeys"`
}

// WithDefaults returns p with every zero field set to its default.
func (p Policy) WithDefaults() Policy {
	if p.BackoffMs == nil {
		p.BackoffMs = DefaultBackoffMs
	}
	if p.FirstUncachedMs == 0 {
		p.FirstUncachedMs = DefaultFirstUncachedMs
	}
	if p.MaxKeys == 0 {
		p.MaxKeys = DefaultMaxKeys
	}
	return p
}

// Validate reports the first bad field of a defaulted policy.
func (p Policy) Validate() error {
	switch {
	case len(p.BackoffMs) == 0:
		return policyerr.New(ErrInvalidPolicy, "backoffMs", "must list at least one window")
	case slices.Min(p.BackoffMs) <= 0:
		return policyerr.New(ErrInvalidPolicy, "backoffMs", "every window must be > 0")
	case p.FirstUncachedMs <= 0:
		return policyerr.New(ErrInvalidPolicy, "firstUncachedMs", "must be > 0")
	case p.MaxKeys <= 0:
		return policyerr.New(ErrInvalidPolicy, "maxKeys", "must be > 0")
	}
	return nil
}

// Failure reports whether a GET's outcome goes into the negative cache:
// status 0 (the fetch rejected: network error) or any 5xx.
func Failure(status int) bool { return status == 0 || (status >= 500 && status <= 599) }

type entry struct {
	untilMs int64 // negative while now < untilMs
	steps   int   // failures that used the BackoffMs schedule
}

// Cache is the negative cache of one tab.
type Cache struct {
	policy  Policy
	keys    *lru.List[entry]
	longest int64 // the longest backoff: how long a quiet key is remembered
	evicted uint64
}

// New returns a Cache for p (defaulted, then validated).
func New(p Policy) (*Cache, error) {
	p = p.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Cache{policy: p, keys: lru.New[entry](), longest: slices.Max(p.BackoffMs)}, nil
}

// Policy returns the defaulted policy in force.
func (c *Cache) Policy() Policy { return c.policy }

// Decide reports whether a GET for key at nowMs is answered from the
// negative cache (hit), and until when.
func (c *Cache) Decide(nowMs int64, key string) (untilMs int64, hit bool) {
	e, ok := c.keys.Peek(key)
	if !ok {
		return 0, false
	}
	if nowMs >= e.untilMs+c.longest {
		c.keys.Remove(key)
		return 0, false
	}
	return e.untilMs, nowMs < e.untilMs
}

// Failed records a failed GET for key; hasCached says whether a cached value
// (a stale copy) can be shown meanwhile. It returns the end of the window, or
// 0 when the policy is off.
func (c *Cache) Failed(nowMs int64, key string, hasCached bool) (untilMs int64) {
	if c.policy.Disabled {
		return 0
	}
	e, known := c.keys.Peek(key)
	switch {
	case known && nowMs < e.untilMs: // a straggler
		return e.untilMs
	case known && nowMs >= e.untilMs+c.longest: // quiet long enough: start over
		e, known = entry{}, false
	}
	if !known && !hasCached {
		e.untilMs = nowMs + c.policy.FirstUncachedMs
	} else {
		e.untilMs = nowMs + c.policy.BackoffMs[min(e.steps, len(c.policy.BackoffMs)-1)]
		e.steps++
	}
	c.keys.Put(key, e)
	for c.keys.Len() > c.policy.MaxKeys {
		c.keys.RemoveOldest()
		c.evicted++
	}
	return e.untilMs
}

// Succeeded forgets key: its next failure starts the schedule over.
func (c *Cache) Succeeded(key string) { c.keys.Remove(key) }

// Clear forgets every key: the user asked for a fresh attempt.
func (c *Cache) Clear() { c.keys.Clear() }

// Len is the number of keys remembered.
func (c *Cache) Len() int { return c.keys.Len() }

// Evicted counts keys forgotten because the table was full.
func (c *Cache) Evicted() uint64 { return c.evicted }
