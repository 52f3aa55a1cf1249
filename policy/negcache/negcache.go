// Package negcache is the negative cache: a GET that failed (network error or
// 5xx) is remembered per key, and calls for that key inside the window do not
// reach the network (they get the stale copy, or the failure again).
//
// When it answers. By default only right after an outage: for AfterOutageMs
// (30 s) after the circuit closed following one (OutageEnded), while a
// gateway that just came back may still fail some keys. Outside that, it
// neither records nor answers, so an API that is healthy but flaky (10% of
// answers a random 500, which never arms the circuit) looks exactly as it
// does without the module: the app's own retry of a transient 500 (TanStack
// retries 3 times) reaches the network and usually succeeds, where a cached
// failure would have turned one bad answer into 5–120 s of errors. Always
// makes it answer for every failure, as the first version did (opt-in).
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

	"github.com/gatewaycircuit/gatewaycircuit/policy/lru"
	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
	"github.com/gatewaycircuit/gatewaycircuit/policy/policyerr"
)

// Defaults, applied in one place: Policy.WithDefaults.
const (
	DefaultFirstUncachedMs = 5_000
	DefaultMaxKeys         = 1_000
	DefaultAfterOutageMs   = 30_000 // how long after an outage the cache answers
)

// DefaultBackoffMs is the schedule of windows for consecutive failures.
var DefaultBackoffMs = []int64{30_000, 60_000, 120_000}

// ErrInvalidPolicy is the sentinel for a Policy that fails Validate.
var ErrInvalidPolicy = errors.New("negcache: invalid policy")

// Policy configures the negative cache. The zero Policy is the default.
type Policy struct {
	// Mode is On (the default: it records and answers only after an
	// outage, see the package comment), Always (for every failure) or Off.
	Mode mode.Mode `json:"mode"`
	// AfterOutageMs is how long after OutageEnded it records and answers.
	// Default 30 000.
	AfterOutageMs int64 `json:"afterOutageMs"`
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
	p.Mode = p.Mode.Or(mode.On)
	if p.BackoffMs == nil {
		p.BackoffMs = DefaultBackoffMs
	}
	if p.FirstUncachedMs == 0 {
		p.FirstUncachedMs = DefaultFirstUncachedMs
	}
	if p.MaxKeys == 0 {
		p.MaxKeys = DefaultMaxKeys
	}
	if p.AfterOutageMs == 0 {
		p.AfterOutageMs = DefaultAfterOutageMs
	}
	return p
}

// Validate reports the first bad field of a defaulted policy.
func (p Policy) Validate() error {
	if !p.Mode.In(mode.On, mode.Off, mode.Always) {
		return policyerr.New(ErrInvalidPolicy, "mode", "must be on, off or always")
	}
	switch {
	case len(p.BackoffMs) == 0:
		return policyerr.New(ErrInvalidPolicy, "backoffMs", "must list at least one window")
	case slices.Min(p.BackoffMs) <= 0:
		return policyerr.New(ErrInvalidPolicy, "backoffMs", "every window must be > 0")
	case p.FirstUncachedMs <= 0:
		return policyerr.New(ErrInvalidPolicy, "firstUncachedMs", "must be > 0")
	case p.MaxKeys <= 0:
		return policyerr.New(ErrInvalidPolicy, "maxKeys", "must be > 0")
	case p.AfterOutageMs <= 0:
		return policyerr.New(ErrInvalidPolicy, "afterOutageMs", "must be > 0")
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
	policy      Policy
	keys        *lru.List[entry]
	longest     int64 // the longest backoff: how long a quiet key is remembered
	widest      int64 // the longest window any failure gets: every read is clamped to it
	evicted     uint64
	recoveredMs int64 // when the last outage ended (OutageEnded); 0 = none seen
}

// New returns a Cache for p (defaulted, then validated).
func New(p Policy) (*Cache, error) {
	p = p.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	longest := slices.Max(p.BackoffMs)
	return &Cache{policy: p, keys: lru.New[entry](), longest: longest, widest: max(longest, p.FirstUncachedMs)}, nil
}

// OutageEnded tells the cache that the circuit closed at nowMs after an
// outage (its half-open probe succeeded): it records and answers for
// AfterOutageMs from then. A trip the circuit withdrew (a rate limiter,
// not an outage) must not call it.
func (c *Cache) OutageEnded(nowMs int64) { c.recoveredMs = nowMs }

// Active reports whether the cache records and answers at nowMs: Always,
// or within AfterOutageMs after OutageEnded (either way, for a clock that
// went back).
func (c *Cache) Active(nowMs int64) bool {
	if c.policy.Mode == mode.Off {
		return false
	}
	d := nowMs - c.recoveredMs
	return c.policy.Mode == mode.Always || (c.recoveredMs != 0 && d < c.policy.AfterOutageMs && -d < c.policy.AfterOutageMs)
}

// Policy returns the defaulted policy in force.
func (c *Cache) Policy() Policy { return c.policy }

// Decide reports whether a GET for key at nowMs is answered from the
// negative cache (hit), and until when.
func (c *Cache) Decide(nowMs int64, key string) (untilMs int64, hit bool) {
	e, ok := c.read(nowMs, key)
	if !ok || !c.Active(nowMs) {
		return 0, false
	}
	return e.untilMs, nowMs < e.untilMs
}

// read returns key's entry at nowMs, its window clamped to now + the widest
// window (a clock that went back cannot stretch it); a key quiet for the
// longest backoff is removed.
func (c *Cache) read(nowMs int64, key string) (entry, bool) {
	e, ok := c.keys.Peek(key)
	switch {
	case !ok:
		return entry{}, false
	case nowMs >= e.untilMs+c.longest:
		c.keys.Remove(key)
		return entry{}, false
	case e.untilMs > nowMs+c.widest:
		e.untilMs = nowMs + c.widest
		c.keys.Put(key, e)
	}
	return e, true
}

// Failed records a failed GET for key; hasCached says whether a cached value
// (a stale copy) can be shown meanwhile. It returns the end of the window, or
// 0 when the cache is not Active.
func (c *Cache) Failed(nowMs int64, key string, hasCached bool) (untilMs int64) {
	if !c.Active(nowMs) {
		return 0
	}
	e, known := c.read(nowMs, key)  // quiet long enough: start over
	if known && nowMs < e.untilMs { // a straggler
		return e.untilMs
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
