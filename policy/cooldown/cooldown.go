// Package cooldown is the service-wide pause on 429 Too Many Requests: a rate
// limit pauses every request to that service (a scope entry, or an origin),
// not only the URL that hit it.
//
// The pause for the n-th 429 in a row on a service (no success in between) is
//
//	min(MaxPauseMs, base × 2^(n-1)),  base = max(Retry-After, 1 s), or PauseMs (5 s) without one
//
// A 429 without a usable Retry-After (absent, or malformed like "0.5":
// retryafter.Parse) leaves the length to this module, and the default is
// short on purpose: the pause blocks a person's tab, not a server's cache.
// Limiters that send 429 without Retry-After (nginx's limit_req_status 429)
// usually drain within a second or two; one that counts per minute is met by
// the doubling (5, 10, 20, 40, 80 s). Five seconds is within the pause
// people accept without thinking the page is broken, and at most
// RetryMaxMs, so the first 429 is waited out and retried once, unseen.
//
// so a server that keeps answering 429 after the time it asked for is given
// twice as long each time, up to 30 minutes. A 429 that arrives while the
// service is already paused (a straggler of the same burst) adds no strike; it
// can only push the end later, when its own Retry-After says so.
//
// A short pause (at most RetryMaxMs, 10 s) is waited out by the caller, which
// then sends the request once more; a longer one, or a 429 to that retry,
// answers the request with the synthetic "cooling down" response.
//
// Every pause is visible (Pauses: service, until, reason, whether the server
// asked for it). The user's "try again" calls ClearChosen: it ends every
// pause this module chose on its own (no Retry-After) and keeps those the
// server asked for with Retry-After. Pauses are persisted (Encode, Restore)
// and every read clamps them to now + MaxPauseMs. Not safe for concurrent
// use.
package cooldown

import (
	"errors"

	"github.com/gatewaycircuit/gatewaycircuit/policy/lru"
	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
	"github.com/gatewaycircuit/gatewaycircuit/policy/policyerr"
)

// Defaults, applied in one place: Policy.WithDefaults.
const (
	DefaultPauseMs     = 5_000     // pause for a 429 without a usable Retry-After (see the package comment)
	DefaultMaxPauseMs  = 1_800_000 // no pause is longer
	DefaultRetryMaxMs  = 10_000    // a 429 whose pause is this short is waited out and retried once
	DefaultMaxServices = 256       // services remembered at once
)

// minBaseMs keeps a server that answers "Retry-After: 0" from growing a pause
// of zero forever.
const minBaseMs = 1000

// NoRetryAfter is the retryAfterMs to pass when the 429 had no usable
// Retry-After header (absent, or malformed: see retryafter.Parse).
const NoRetryAfter = -1

// ErrInvalidPolicy is the sentinel for a Policy that fails Validate.
var ErrInvalidPolicy = errors.New("cooldown: invalid policy")

// Policy configures the cooldown. The zero Policy is the default behaviour.
type Policy struct {
	// Mode is On (the default) or Off: off, a 429 reaches the app as it is.
	Mode mode.Mode `json:"mode"`
	// PauseMs is the pause for a 429 without Retry-After. Default 5 000.
	PauseMs int64 `json:"pauseMs"`
	// MaxPauseMs caps every pause, Retry-After included. Default 1 800 000.
	MaxPauseMs int64 `json:"maxPauseMs"`
	// RetryMaxMs: a 429 whose pause is at most this long is waited out and
	// sent once more. Default 10 000.
	RetryMaxMs int64 `json:"retryMaxMs"`
	// NoRetry turns that single retry off: every 429 is a pause.
	NoRetry bool `json:"noRetry"`
	// MaxServices bounds the services remembered; when full, the one updated
	// least recently is forgotten (counted by Evicted). Default 256.
	MaxServices int `json:"maxServices"`
}

// WithDefaults returns p with every zero field set to its default.
func (p Policy) WithDefaults() Policy {
	p.Mode = p.Mode.Or(mode.On)
	if p.PauseMs == 0 {
		p.PauseMs = DefaultPauseMs
	}
	if p.MaxPauseMs == 0 {
		p.MaxPauseMs = DefaultMaxPauseMs
	}
	if p.RetryMaxMs == 0 {
		p.RetryMaxMs = DefaultRetryMaxMs
	}
	if p.MaxServices == 0 {
		p.MaxServices = DefaultMaxServices
	}
	return p
}

// Validate reports the first bad field of a defaulted policy.
func (p Policy) Validate() error {
	if !p.Mode.In(mode.On, mode.Off) {
		return policyerr.New(ErrInvalidPolicy, "mode", "must be on or off")
	}
	switch {
	case p.PauseMs <= 0:
		return policyerr.New(ErrInvalidPolicy, "pauseMs", "must be > 0")
	case p.MaxPauseMs <= 0:
		return policyerr.New(ErrInvalidPolicy, "maxPauseMs", "must be > 0")
	case p.PauseMs > p.MaxPauseMs:
		return policyerr.New(ErrInvalidPolicy, "pauseMs", "must not exceed maxPauseMs")
	case p.RetryMaxMs <= 0:
		return policyerr.New(ErrInvalidPolicy, "retryMaxMs", "must be > 0")
	case p.MaxServices <= 0:
		return policyerr.New(ErrInvalidPolicy, "maxServices", "must be > 0")
	}
	return nil
}

// Action is what the caller does with a 429.
type Action int

const (
	None  Action = iota // the policy is off: hand the 429 to the app
	Retry               // wait WaitMs (abortable), then send the request once more
	Pause               // answer with the synthetic cooldown response; the service is paused until UntilMs
)

var actionNames = [...]string{"none", "retry", "pause"}

func (a Action) String() string {
	if a >= 0 && int(a) < len(actionNames) {
		return actionNames[a]
	}
	return "Action(?)"
}

// Outcome is the decision for one 429.
type Outcome struct {
	Action  Action
	WaitMs  int64 // for Retry: how long to wait before the one retry
	UntilMs int64 // Unix ms: the service is paused until then (Retry and Pause)
}

type service struct {
	untilMs int64 // paused while now < untilMs
	strikes int   // 429s in a row, stragglers excluded
	asked   bool  // the server asked for the pause (Retry-After): ClearChosen keeps it
}

// Reasons a service is paused, for Paused.Reason.
const (
	ReasonRetryAfter  = "retryAfter"  // a 429 with Retry-After: the server set the length
	ReasonRateLimited = "rateLimited" // a 429 without a usable Retry-After: this module chose the length
)

// Paused is one service's pause, as the public API lists it.
type Paused struct {
	Service     string // the scope entry or origin paused
	UntilMs     int64  // Unix ms
	Strikes     int    // 429s in a row
	ServerAsked bool   // Retry-After set it; ClearChosen keeps it
}

// Reason is ReasonRetryAfter or ReasonRateLimited.
func (p Paused) Reason() string {
	if p.ServerAsked {
		return ReasonRetryAfter
	}
	return ReasonRateLimited
}

// Cooldown holds the pauses of one tab.
type Cooldown struct {
	policy   Policy
	services *lru.List[service]
	evicted  uint64
	version  uint64 // bumped on every change of services (persistence)
}

// New returns a Cooldown for p (defaulted, then validated).
func New(p Policy) (*Cooldown, error) {
	p = p.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Cooldown{policy: p, services: lru.New[service]()}, nil
}

// Policy returns the defaulted policy in force.
func (c *Cooldown) Policy() Policy { return c.policy }

// Decide reports whether requests to svc are paused at nowMs, and until when.
func (c *Cooldown) Decide(nowMs int64, svc string) (untilMs int64, paused bool) {
	s, ok := c.read(nowMs, svc)
	if !ok {
		return 0, false
	}
	return s.untilMs, nowMs < s.untilMs
}

// read returns svc's entry at nowMs, clamped to now + MaxPauseMs (a clock
// that went back cannot stretch a pause); a long-forgotten one is removed.
func (c *Cooldown) read(nowMs int64, svc string) (service, bool) {
	s, ok := c.services.Peek(svc)
	switch {
	case !ok:
		return service{}, false
	case c.forgotten(nowMs, s):
		c.remove(svc)
		return service{}, false
	case s.untilMs > nowMs+c.policy.MaxPauseMs:
		s.untilMs = nowMs + c.policy.MaxPauseMs
		c.put(svc, s)
	}
	return s, true
}

// Pauses lists the services paused at nowMs, least recently updated first.
func (c *Cooldown) Pauses(nowMs int64) []Paused {
	var out []Paused
	for _, svc := range c.services.Keys() {
		if s, ok := c.read(nowMs, svc); ok && nowMs < s.untilMs {
			out = append(out, Paused{Service: svc, UntilMs: s.untilMs, Strikes: s.strikes, ServerAsked: s.asked})
		}
	}
	return out
}

// ClearChosen is the user's "try again": it forgets every service whose
// pause (or strikes) this module chose on its own, and keeps the pauses the
// server asked for with Retry-After. It reports whether anything changed.
func (c *Cooldown) ClearChosen() bool {
	changed := false
	for _, svc := range c.services.Keys() {
		if s, _ := c.services.Peek(svc); !s.asked {
			c.remove(svc)
			changed = true
		}
	}
	return changed
}

// Limited takes a 429 from svc. retryAfterMs is the parsed Retry-After, or
// NoRetryAfter. retried says the request is already the one retry.
func (c *Cooldown) Limited(nowMs int64, svc string, retryAfterMs int64, retried bool) Outcome {
	if c.policy.Mode == mode.Off {
		return Outcome{Action: None}
	}
	s, _ := c.read(nowMs, svc)
	switch {
	case nowMs < s.untilMs: // a straggler: no strike, but honour a later Retry-After
		if end := nowMs + min(retryAfterMs, c.policy.MaxPauseMs); retryAfterMs >= 0 && end >= s.untilMs {
			s.untilMs, s.asked = end, true
		}
	default:
		s.strikes++
		s.untilMs = nowMs + c.pause(retryAfterMs, s.strikes)
		s.asked = retryAfterMs >= 0
	}
	c.put(svc, s)
	wait := s.untilMs - nowMs
	if !retried && !c.policy.NoRetry && wait <= c.policy.RetryMaxMs {
		return Outcome{Action: Retry, WaitMs: wait, UntilMs: s.untilMs}
	}
	return Outcome{Action: Pause, UntilMs: s.untilMs}
}

// Succeeded takes any other response from svc: the strikes are over. A pause
// in force stays (the success is a straggler from before it).
func (c *Cooldown) Succeeded(nowMs int64, svc string) {
	s, ok := c.services.Peek(svc)
	if !ok {
		return
	}
	if nowMs >= s.untilMs {
		c.remove(svc)
		return
	}
	if s.strikes != 0 {
		s.strikes = 0
		c.put(svc, s)
	}
}

// Len is the number of services with a pause or strikes remembered.
func (c *Cooldown) Len() int { return c.services.Len() }

// Evicted counts services forgotten because the table was full.
func (c *Cooldown) Evicted() uint64 { return c.evicted }

// pause is the growth rule in the package comment.
func (c *Cooldown) pause(retryAfterMs int64, strikes int) int64 {
	p := c.policy.PauseMs
	if retryAfterMs >= 0 {
		p = max(retryAfterMs, minBaseMs)
	}
	for i := 1; i < strikes && p < c.policy.MaxPauseMs; i++ {
		p *= 2
	}
	return min(p, c.policy.MaxPauseMs)
}

// forgotten: quiet for MaxPauseMs after its pause ended, a service starts
// again from its first strike.
func (c *Cooldown) forgotten(nowMs int64, s service) bool {
	return nowMs >= s.untilMs+c.policy.MaxPauseMs
}

func (c *Cooldown) put(svc string, s service) {
	c.version++
	c.services.Put(svc, s)
	for c.services.Len() > c.policy.MaxServices {
		c.services.RemoveOldest()
		c.evicted++
	}
}

func (c *Cooldown) remove(svc string) {
	c.version++
	c.services.Remove(svc)
}

// Service returns the service a request URL belongs to: the longest scope
// entry it starts with, or else its origin ("https://host:port").
func Service(url string, scope []string) string {
	best := ""
	for _, s := range scope {
		if len(s) > len(best) && len(url) >= len(s) && url[:len(s)] == s {
			best = s
		}
	}
	if best != "" {
		return best
	}
	return origin(url)
}

// origin cuts an absolute URL after its authority; a URL without "://" is
// its own service.
func origin(url string) string {
	for i := 0; i+3 <= len(url); i++ {
		if url[i] == '/' || url[i] == '?' || url[i] == '#' {
			break
		}
		if url[i:i+3] == "://" {
			for j := i + 3; j < len(url); j++ {
				if url[j] == '/' || url[j] == '?' || url[j] == '#' {
					return url[:j]
				}
			}
			return url
		}
	}
	return url
}
