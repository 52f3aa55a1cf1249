package cache

import (
	"errors"
	"slices"
	"strings"

	"github.com/gatewaycircuit/gatewaycircuit/policy/emptyttl"
	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
	"github.com/gatewaycircuit/gatewaycircuit/policy/policyerr"
)

// Defaults, applied in one place: Policy.WithDefaults.
const (
	DefaultFreshTTLMs     = 30_000    // a copy is served as fresh this long
	DefaultMaxStaleMs     = 120_000   // a copy older than this is never served: "unavailable" instead
	DefaultFirstFailureMs = 5_000     // backoff after a first failure with no copy to show
	DefaultPauseMs        = 5_000     // first pause for a 429 (or refused credentials) without Retry-After; repeats double it
	DefaultMaxPauseMs     = 1_800_000 // no pause is longer, however often it doubles
	DefaultMaxKeys        = 2_000     // copies kept per service, least recently used evicted first
	DefaultMaxBytes       = 32 << 20  // bytes of bodies kept per service
	DefaultMaxBodyBytes   = 1 << 20   // the largest body read and kept; larger ones stream through
)

// DefaultBackoffMs is the per-key schedule for transient failures in a row.
var DefaultBackoffMs = []int64{30_000, 60_000, 120_000}

// DefaultEmptySteps stretch the TTL of an answer that keeps being empty.
var DefaultEmptySteps = []emptyttl.Step{{Streak: 3, TTLMs: 60_000}, {Streak: 5, TTLMs: 120_000}}

// ErrInvalidPolicy is the sentinel for a Policy that fails Validate.
var ErrInvalidPolicy = errors.New("cache: invalid policy")

// Policy is one service's GET cache. Durations are milliseconds; the zero
// Policy is the default.
type Policy struct {
	// FreshTTLMs: a copy younger than this is a hit. Default 30 000.
	FreshTTLMs int64 `json:"freshTtlMs"`
	// MaxStaleMs: a copy may stand in for a failing upstream until it is
	// this old (counted from when it was collected); past it the edge
	// answers 503 with Retry-After. Default 120 000; at least FreshTTLMs.
	MaxStaleMs int64 `json:"maxStaleMs"`
	// BackoffMs: per-key windows for transient failures (network, 5xx) in
	// a row; the last repeats. Default 30 000, 60 000, 120 000.
	BackoffMs []int64 `json:"backoffMs"`
	// FirstFailureMs: the window of a first failure with no copy. Default 5 000.
	FirstFailureMs int64 `json:"firstFailureMs"`
	// PauseMs: the pause for a 429 (of the path answered 429) or a refusal
	// of the edge's credentials (of the whole service, see CredentialCheck)
	// without Retry-After; repeats double it, up to MaxPauseMs. Default
	// 5 000, the browser module's: a limiter that drains in a second is not
	// met by minutes of refusals, and one that counts per minute by the
	// doubling (5, 10, 20, 40, 80 s).
	PauseMs int64 `json:"pauseMs"`
	// MaxPauseMs caps every pause, Retry-After included. Default 1 800 000.
	MaxPauseMs int64 `json:"maxPauseMs"`
	// EmptySteps stretch the TTL of an answer that keeps being an empty
	// collection ([] {} null or nothing); the first non-empty one snaps back
	// to FreshTTLMs. Default 3 in a row: 60 000; 5: 120 000.
	EmptySteps []emptyttl.Step `json:"emptySteps"`
	// MaxKeys bounds the copies kept. Default 2 000.
	MaxKeys int `json:"maxKeys"`
	// MaxBytes bounds the bytes of the bodies kept. Default 32 MiB.
	MaxBytes int64 `json:"maxBytes"`
	// MaxBodyBytes is the largest body the edge reads into memory and
	// keeps. A larger 2xx answer streams through to its caller, uncached
	// (x-edge-cache: pass), and callers waiting on the same fetch make
	// their own; a larger error answer loses its body. A Durable Object's
	// SQLite holds values of up to 2 MB. Default 1 MiB; at most MaxBytes.
	MaxBodyBytes int64 `json:"maxBodyBytes"`
	// CredentialCheck is a path (and query) on the service's upstream that
	// answers 2xx while the edge's own credentials (upstreamHeaders) are
	// accepted, e.g. "/api/me". A 401 or 403 pauses the whole service only
	// when this path answers 401 or 403 too: one client's GET of a path the
	// upstream refuses is that path's answer, not evidence about the edge's
	// key. A check that passes is trusted for FreshTTLMs, so clients cannot
	// make the edge ask it more often. Default "": a 401 or 403 never pauses
	// the service; it passes through, uncached.
	CredentialCheck string `json:"credentialCheck"`
}

// WithDefaults returns p with every zero field set to its default.
func (p Policy) WithDefaults() Policy {
	if p.FreshTTLMs == 0 {
		p.FreshTTLMs = DefaultFreshTTLMs
	}
	if p.MaxStaleMs == 0 {
		p.MaxStaleMs = DefaultMaxStaleMs
	}
	if p.BackoffMs == nil {
		p.BackoffMs = DefaultBackoffMs
	}
	if p.FirstFailureMs == 0 {
		p.FirstFailureMs = DefaultFirstFailureMs
	}
	if p.PauseMs == 0 {
		p.PauseMs = DefaultPauseMs
	}
	if p.MaxPauseMs == 0 {
		p.MaxPauseMs = DefaultMaxPauseMs
	}
	if p.EmptySteps == nil {
		p.EmptySteps = DefaultEmptySteps
	}
	if p.MaxKeys == 0 {
		p.MaxKeys = DefaultMaxKeys
	}
	if p.MaxBytes == 0 {
		p.MaxBytes = DefaultMaxBytes
	}
	if p.MaxBodyBytes == 0 {
		p.MaxBodyBytes = DefaultMaxBodyBytes
	}
	return p
}

// Validate reports the first bad field of a defaulted policy.
func (p Policy) Validate() error {
	switch {
	case p.FreshTTLMs <= 0:
		return policyerr.New(ErrInvalidPolicy, "freshTtlMs", "must be > 0")
	case p.MaxStaleMs < p.FreshTTLMs:
		return policyerr.New(ErrInvalidPolicy, "maxStaleMs", "must be at least freshTtlMs")
	case len(p.BackoffMs) == 0 || slices.Min(p.BackoffMs) <= 0:
		return policyerr.New(ErrInvalidPolicy, "backoffMs", "must list windows > 0")
	case p.FirstFailureMs <= 0:
		return policyerr.New(ErrInvalidPolicy, "firstFailureMs", "must be > 0")
	case p.PauseMs <= 0 || p.PauseMs > p.MaxPauseMs:
		return policyerr.New(ErrInvalidPolicy, "pauseMs", "must be > 0 and at most maxPauseMs")
	case p.MaxKeys <= 0:
		return policyerr.New(ErrInvalidPolicy, "maxKeys", "must be > 0")
	case p.MaxBytes <= 0:
		return policyerr.New(ErrInvalidPolicy, "maxBytes", "must be > 0")
	case p.MaxBodyBytes <= 0 || p.MaxBodyBytes > p.MaxBytes:
		return policyerr.New(ErrInvalidPolicy, "maxBodyBytes", "must be > 0 and at most maxBytes")
	case p.CredentialCheck != "" && !strings.HasPrefix(p.CredentialCheck, "/"):
		return policyerr.New(ErrInvalidPolicy, "credentialCheck", "must be empty or a path starting with /")
	}
	if _, err := emptyttl.New(emptyttl.Policy{Mode: mode.On, Steps: p.EmptySteps}); err != nil {
		return policyerr.New(ErrInvalidPolicy, "emptySteps", err.Error())
	}
	return nil
}
