// Package stale is the index of the last good GET response per key, for the
// stale fallback: when the network fails, the circuit is open or the key is
// in the negative cache, a copy younger than its limit is served, marked as
// stale with its age. It is opt-in: it changes what apps see.
//
// The bodies stay in JS; this package only decides. Each stored copy gets a
// numeric id, which JS uses as the key of the body it keeps. Store says
// whether to keep a response (and under which id); Lookup says whether a copy
// may be served now; Dropped hands over the ids whose bodies JS must release
// (evicted, replaced or forbidden), after any call.
//
// Bounds: MaxEntries (2,000) and MaxBytes (5 MiB) of bodies; when either is
// exceeded the least recently stored or served copies go first. A copy may be
// served while its age (time since it was stored) is under its limit:
// max-age + stale-if-error from its Cache-Control when the server sent
// stale-if-error, else MaxStaleMs (1 h). A response with "no-store" is never
// kept, and removes the copy held for its key. Not safe for concurrent use.
package stale

import (
	"errors"

	"github.com/gatewaycircuit/gatewaycircuit/policy/lru"
	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
	"github.com/gatewaycircuit/gatewaycircuit/policy/policyerr"
)

// Defaults, applied in one place: Policy.WithDefaults.
const (
	DefaultMaxEntries = 2_000
	DefaultMaxBytes   = 5 << 20   // bytes of bodies held by JS
	DefaultMaxStaleMs = 3_600_000 // age limit without stale-if-error
)

// ErrInvalidPolicy is the sentinel for a Policy that fails Validate.
var ErrInvalidPolicy = errors.New("stale: invalid policy")

// Policy configures the stale fallback. The zero Policy is off.
type Policy struct {
	// Mode is Off (the default) or On: on, copies are kept and served.
	Mode mode.Mode `json:"mode"`
	// MaxEntries bounds the copies kept. Default 2 000.
	MaxEntries int `json:"maxEntries"`
	// MaxBytes bounds the sum of their body sizes. Default 5 MiB.
	MaxBytes int64 `json:"maxBytes"`
	// MaxStaleMs is the age limit of a copy whose response had no
	// stale-if-error. Default 3 600 000.
	MaxStaleMs int64 `json:"maxStaleMs"`
}

// WithDefaults returns p with every zero field set to its default.
func (p Policy) WithDefaults() Policy {
	p.Mode = p.Mode.Or(mode.Off)
	if p.MaxEntries == 0 {
		p.MaxEntries = DefaultMaxEntries
	}
	if p.MaxBytes == 0 {
		p.MaxBytes = DefaultMaxBytes
	}
	if p.MaxStaleMs == 0 {
		p.MaxStaleMs = DefaultMaxStaleMs
	}
	return p
}

// Validate reports the first bad field of a defaulted policy.
func (p Policy) Validate() error {
	if !p.Mode.In(mode.On, mode.Off) {
		return policyerr.New(ErrInvalidPolicy, "mode", "must be on or off")
	}
	switch {
	case p.MaxEntries <= 0:
		return policyerr.New(ErrInvalidPolicy, "maxEntries", "must be > 0")
	case p.MaxBytes <= 0:
		return policyerr.New(ErrInvalidPolicy, "maxBytes", "must be > 0")
	case p.MaxStaleMs <= 0:
		return policyerr.New(ErrInvalidPolicy, "maxStaleMs", "must be > 0")
	}
	return nil
}

// Copy describes a copy that may be served.
type Copy struct {
	ID         uint32 // the body's key in JS
	StoredAtMs int64  // Unix ms it was collected: the collected-at timestamp
	AgeMs      int64  // how old it is now (the Age header is AgeMs/1000, rounded down)
}

type entry struct {
	id         uint32
	storedAtMs int64
	bytes      int64
	limitMs    int64 // may be served while age < limitMs
}

// Index is the stale copies' metadata for one tab.
type Index struct {
	policy  Policy
	keys    *lru.List[entry]
	bytes   int64    // sum of entry.bytes
	dropped []uint32 // ids whose bodies JS must release; see Dropped
	lastID  uint32
	evicted uint64
}

// New returns an empty Index for p (defaulted, then validated).
func New(p Policy) (*Index, error) {
	p = p.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Index{policy: p, keys: lru.New[entry]()}, nil
}

// Policy returns the defaulted policy in force.
func (x *Index) Policy() Policy { return x.policy }

// Store decides whether to keep a good GET response for key, of size bytes,
// with the given Cache-Control header. It returns the id under which JS keeps
// the body, or 0 to not keep it. The copy it replaces, and any it evicts, are
// in Dropped.
func (x *Index) Store(nowMs int64, key string, bytes int64, cacheControl string) (id uint32) {
	if x.policy.Mode == mode.Off {
		return 0
	}
	cc := ParseCacheControl(cacheControl)
	x.Remove(key)
	if cc.NoStore || bytes < 0 || bytes > x.policy.MaxBytes {
		return 0
	}
	limit := x.policy.MaxStaleMs
	if cc.StaleIfError >= 0 {
		limit = (max(cc.MaxAge, 0) + cc.StaleIfError) * 1000
	}
	x.lastID++
	if x.lastID == 0 { // 0 means "not stored"
		x.lastID++
	}
	x.keys.Put(key, entry{id: x.lastID, storedAtMs: nowMs, bytes: bytes, limitMs: limit})
	x.bytes += bytes
	for x.keys.Len() > x.policy.MaxEntries || x.bytes > x.policy.MaxBytes {
		oldest, _, _ := x.keys.Oldest()
		x.Remove(oldest)
		x.evicted++
	}
	return x.lastID
}

// Lookup returns the copy for key if it may be served at nowMs, and marks it
// used. A copy past its limit is removed (its id goes to Dropped).
func (x *Index) Lookup(nowMs int64, key string) (Copy, bool) {
	e, ok := x.keys.Get(key)
	if !ok || x.policy.Mode == mode.Off {
		return Copy{}, false
	}
	age := max(nowMs-e.storedAtMs, 0) // a clock set back makes it fresh, not negative
	if age >= e.limitMs {
		x.Remove(key)
		return Copy{}, false
	}
	return Copy{ID: e.id, StoredAtMs: e.storedAtMs, AgeMs: age}, true
}

// Remove forgets the copy for key; its id goes to Dropped.
func (x *Index) Remove(key string) {
	if e, ok := x.keys.Remove(key); ok {
		x.bytes -= e.bytes
		x.dropped = append(x.dropped, e.id)
	}
}

// Clear forgets every copy (a user logged out); their ids go to Dropped.
func (x *Index) Clear() {
	for _, k := range x.keys.Keys() {
		x.Remove(k)
	}
}

// Dropped returns, and forgets, the ids whose bodies JS must release.
func (x *Index) Dropped() []uint32 {
	d := x.dropped
	x.dropped = nil
	return d
}

// Len is the number of copies; Bytes the sum of their sizes.
func (x *Index) Len() int     { return x.keys.Len() }
func (x *Index) Bytes() int64 { return x.bytes }

// Evicted counts copies dropped to stay within the bounds.
func (x *Index) Evicted() uint64 { return x.evicted }
