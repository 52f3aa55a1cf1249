package circuit

import (
	"errors"
	"strconv"
	"strings"

	"github.com/gatewaycircuit/gatewaycircuit/policy/policyerr"
)

// Defaults, applied in one place: Policy.WithDefaults. Every knob, its
// default and its valid range:
//
//	TTLMs            120 000   > 0, ≤ MaxTTLMs   how long a trip arms the circuit
//	MaxTTLMs         600 000   > 0               cap on every TTL and every time read back
//	TripStatuses     502,503,504  100–599        the answers that count as the gateway failing
//	TripWindowMs       3 000   > 0               the window W in which TripMinFailures failures arm
//	TripMinFailures        1   1–1000            failures within W, with no success between, that arm
//	TripBurstMs          250   > 0               requests sent this close together are one burst (in flight together)
//	HalfOpenMs       MaxTTLMs  1–MaxTTLMs        how long after the TTL the outage is remembered (half-open)
//
// The trip rule ("a rate limiter is not an outage") is in the package comment.
const (
	DefaultTTLMs           = 5_000   // the first open period; it doubles while the probe fails
	DefaultMaxTTLMs        = 120_000 // the cap: no open period, stored or requested, is longer
	DefaultTripWindowMs    = 3_000   // failures this close together form one run (TripMinFailures)
	DefaultTripMinFailures = 1       // the seed's rule: one failure arms when nothing succeeded
	DefaultTripBurstMs     = 250     // one burst: a page's mount, a wave of TanStack retries
)

// MaxStrikes caps the failed probes counted in a row (stored as "strikes"):
// TTL × 2^16 is beyond any MaxTTLMs that makes sense for a person's tab.
const MaxStrikes = 16

// NoRetryAfter is the retryAfterMs to pass to Observe when the answer had no
// usable Retry-After header (absent, or malformed: see retryafter.Parse).
const NoRetryAfter = -1

// DefaultTripStatuses are the gateway failures that arm the circuit.
// 500 is not among them: it is the application failing, not the gateway.
var DefaultTripStatuses = []int{502, 503, 504}

// ErrInvalidPolicy is the sentinel for a Policy that fails Validate.
var ErrInvalidPolicy = errors.New("circuit: invalid policy")

// Policy is the circuit's configuration, as plain data. Zero fields take the
// defaults above (see WithDefaults).
type Policy struct {
	// TTLMs is how long a trip arms the circuit. Default 120 000.
	TTLMs int64 `json:"ttlMs"`
	// MaxTTLMs caps every TTL, including an "until" read back from storage,
	// so a poisoned entry cannot lock a tab out for days. Default 600 000.
	MaxTTLMs int64 `json:"maxTtlMs"`
	// TripStatuses are the answers that count as the gateway failing.
	// Default 502, 503, 504.
	TripStatuses []int `json:"tripStatuses"`
	// TripWindowMs is the window W in which TripMinFailures trip statuses
	// arm the circuit. With the default TripMinFailures (1) it has no
	// effect: what keeps a rate limiter's partial failure from arming is a
	// success in flight together with it (see the package comment), not a
	// recent one. Default 3 000.
	TripWindowMs int64 `json:"tripWindowMs"`
	// TripMinFailures is how many trip statuses within W (with no success
	// between) arm the circuit. Default 1: a gateway that answers nothing
	// but failures arms on the first.
	TripMinFailures int `json:"tripMinFailures"`
	// TripBurstMs is how close together two requests must be sent to be
	// one burst, in flight together for the trip rule even when one came
	// back before the other was sent: what a page's mount fires at once, or
	// a wave of TanStack retries (each timer started by one answer of the
	// wave before, so the wave is as spread out as those answers were: tens
	// of ms, more on a busy device), sent a few at a time by the browser
	// (six connections per host on HTTP/1.1). The default, 250 ms, stays
	// under the pause a person notices: an app's next action after its
	// queries came back is not part of their burst.
	TripBurstMs int64 `json:"tripBurstMs"`
	// HalfOpenMs is how long after its TTL an outage is remembered as
	// half-open (persisted as "halfOpenUntil"): the next request, even after
	// a reload, is the one probe; a failure re-arms with the TTL doubled.
	// Default MaxTTLMs; at most MaxTTLMs.
	HalfOpenMs int64 `json:"halfOpenMs"`
	// Scope lists absolute URL prefixes ("https://api.example.com/",
	// "http://127.0.0.1:8080/api/"). A request is in scope when its absolute
	// URL starts with one of them. The shim resolves data-scope against the
	// page (default: the page's origin) before it reaches Go.
	Scope []string `json:"scope"`
}

// WithDefaults returns p with every zero field set to its default.
func (p Policy) WithDefaults() Policy {
	if p.TTLMs == 0 {
		p.TTLMs = DefaultTTLMs
	}
	if p.MaxTTLMs == 0 {
		p.MaxTTLMs = DefaultMaxTTLMs
	}
	if p.TripStatuses == nil {
		p.TripStatuses = DefaultTripStatuses
	}
	if p.TripWindowMs == 0 {
		p.TripWindowMs = DefaultTripWindowMs
	}
	if p.TripMinFailures == 0 {
		p.TripMinFailures = DefaultTripMinFailures
	}
	if p.TripBurstMs == 0 {
		p.TripBurstMs = DefaultTripBurstMs
	}
	if p.HalfOpenMs == 0 {
		p.HalfOpenMs = p.MaxTTLMs
	}
	return p
}

// Validate reports the first bad field of a defaulted policy.
func (p Policy) Validate() error {
	switch {
	case p.TTLMs <= 0:
		return policyerr.New(ErrInvalidPolicy, "ttlMs", "must be > 0")
	case p.MaxTTLMs <= 0:
		return policyerr.New(ErrInvalidPolicy, "maxTtlMs", "must be > 0")
	case p.TTLMs > p.MaxTTLMs:
		return policyerr.New(ErrInvalidPolicy, "ttlMs", "must not exceed maxTtlMs ("+strconv.FormatInt(p.MaxTTLMs, 10)+")")
	case p.TripWindowMs <= 0:
		return policyerr.New(ErrInvalidPolicy, "tripWindowMs", "must be > 0")
	case p.TripMinFailures < 1 || p.TripMinFailures > 1000:
		return policyerr.New(ErrInvalidPolicy, "tripMinFailures", "must be 1-1000")
	case p.TripBurstMs <= 0:
		return policyerr.New(ErrInvalidPolicy, "tripBurstMs", "must be > 0")
	case p.HalfOpenMs <= 0 || p.HalfOpenMs > p.MaxTTLMs:
		return policyerr.New(ErrInvalidPolicy, "halfOpenMs", "must be 1-maxTtlMs ("+strconv.FormatInt(p.MaxTTLMs, 10)+")")
	}
	for _, s := range p.TripStatuses {
		if !validStatus(s) {
			return policyerr.New(ErrInvalidPolicy, "tripStatuses", strconv.Itoa(s)+" is not an HTTP status (100-599)")
		}
	}
	if len(p.Scope) == 0 {
		return policyerr.New(ErrInvalidPolicy, "scope", "must list at least one URL prefix")
	}
	for _, s := range p.Scope {
		if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
			return policyerr.New(ErrInvalidPolicy, "scope", strconv.Quote(s)+" is not an absolute http(s) URL prefix")
		}
	}
	return nil
}

func validStatus(s int) bool { return s >= 100 && s <= 599 }

// InScope reports whether an absolute request URL is guarded by the circuit.
func (p *Policy) InScope(url string) bool {
	for _, prefix := range p.Scope {
		if strings.HasPrefix(url, prefix) {
			return true
		}
	}
	return false
}

// Trips reports whether a response status counts as the gateway failing.
func (p *Policy) Trips(status int) bool {
	for _, s := range p.TripStatuses {
		if s == status {
			return true
		}
	}
	return false
}

// probeTTL is the open period after the strikes-th failed probe in a row:
// min(TTLMs × 2^strikes, MaxTTLMs).
func (p *Policy) probeTTL(strikes int) int64 {
	ttl := p.TTLMs
	for i := 0; i < strikes && ttl < p.MaxTTLMs; i++ {
		ttl *= 2
	}
	return min(ttl, p.MaxTTLMs)
}
