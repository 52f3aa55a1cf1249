package circuit

import (
	"errors"
	"strconv"
	"strings"
)

// Defaults, applied in one place: Policy.WithDefaults.
const (
	DefaultTTLMs    = 120_000 // how long a trip keeps the circuit armed
	DefaultMaxTTLMs = 600_000 // no stored or requested TTL is honoured beyond this
)

// DefaultTripStatuses are the gateway failures that arm the circuit.
// 500 is not among them: it is the application failing, not the gateway.
var DefaultTripStatuses = []int{502, 503, 504}

// ErrInvalidPolicy is the sentinel for a Policy that fails Validate.
var ErrInvalidPolicy = errors.New("circuit: invalid policy")

// PolicyError names the bad field. It unwraps to ErrInvalidPolicy.
type PolicyError struct {
	Field  string
	Reason string
}

func (e *PolicyError) Error() string {
	return "circuit: invalid policy: " + e.Field + ": " + e.Reason
}

// Unwrap makes errors.Is(err, ErrInvalidPolicy) true.
func (e *PolicyError) Unwrap() error { return ErrInvalidPolicy }

// Policy is the circuit's configuration, as plain data. Zero fields take the
// defaults above (see WithDefaults).
type Policy struct {
	// TTLMs is how long a trip arms the circuit. Default 120 000.
	TTLMs int64 `json:"ttlMs"`
	// MaxTTLMs caps every TTL, including an "until" read back from storage,
	// so a poisoned entry cannot lock a tab out for days. Default 600 000.
	MaxTTLMs int64 `json:"maxTtlMs"`
	// TripStatuses arm the circuit when a response has one of them.
	// Default 502, 503, 504.
	TripStatuses []int `json:"tripStatuses"`
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
	return p
}

// Validate reports the first bad field of a defaulted policy.
func (p Policy) Validate() error {
	switch {
	case p.TTLMs <= 0:
		return &PolicyError{"ttlMs", "must be > 0"}
	case p.MaxTTLMs <= 0:
		return &PolicyError{"maxTtlMs", "must be > 0"}
	case p.TTLMs > p.MaxTTLMs:
		return &PolicyError{"ttlMs", "must not exceed maxTtlMs (" + strconv.FormatInt(p.MaxTTLMs, 10) + ")"}
	}
	for _, s := range p.TripStatuses {
		if !validStatus(s) {
			return &PolicyError{"tripStatuses", strconv.Itoa(s) + " is not an HTTP status (100-599)"}
		}
	}
	if len(p.Scope) == 0 {
		return &PolicyError{"scope", "must list at least one URL prefix"}
	}
	for _, s := range p.Scope {
		if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
			return &PolicyError{"scope", strconv.Quote(s) + " is not an absolute http(s) URL prefix"}
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

// Trips reports whether a response status arms the circuit.
func (p *Policy) Trips(status int) bool {
	for _, s := range p.TripStatuses {
		if s == status {
			return true
		}
	}
	return false
}
