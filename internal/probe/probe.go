// Package probe is the circuit's half-open state: when the TTL of an armed
// circuit ends, exactly one request of the tab goes to the network as the
// probe, and the others wait for its outcome (or are answered as open)
// instead of stampeding the gateway at the second it comes back.
//
// A Gate sits beside circuit.Breaker without changing it. The wiring:
//
//   - whenever the breaker arms (Observe, Arm, or Load of an armed state),
//     call Armed(until, status);
//   - when the breaker allows an in-scope request, ask Gate.Decide:
//     Closed: send it as usual; Probe: send it, then report the outcome with
//     its id; Wait: wait for probe id's outcome, then decide again from the
//     start; Block: answer as open;
//   - a probe answered with a trip status, or failing at the network, is
//     Failed: re-arm the breaker with breaker.Arm(now, status, ttl) from the
//     result (not Observe, which would use the base TTL); any other answer is
//     Succeeded; a probe aborted by its caller is Abandoned (no verdict: the
//     next request probes);
//   - the user's clear calls Clear.
//
// Each failed probe in a row doubles the TTL, capped at MaxTTLMs; a success
// or Clear returns to the base TTL. The count is kept in memory: a reload
// starts again from the base TTL. Not safe for concurrent use.
package probe

import (
	"errors"

	"github.com/gatewaycircuit/gatewaycircuit/internal/circuit"
	"github.com/gatewaycircuit/gatewaycircuit/internal/policyerr"
)

// DefaultProbeTimeoutMs is how long a probe may stay unanswered before the
// next request replaces it. The TTLs default to the circuit's.
const DefaultProbeTimeoutMs = 30_000

// ErrInvalidPolicy is the sentinel for a Policy that fails Validate.
var ErrInvalidPolicy = errors.New("probe: invalid policy")

// Policy configures the gate. The zero Policy is the default behaviour.
type Policy struct {
	// Disabled turns the gate off: at expiry every request goes at once.
	Disabled bool `json:"disabled"`
	// TTLMs and MaxTTLMs are the circuit's (copy them from circuit.Policy).
	// Defaults circuit.DefaultTTLMs and circuit.DefaultMaxTTLMs.
	TTLMs    int64 `json:"ttlMs"`
	MaxTTLMs int64 `json:"maxTtlMs"`
	// ProbeTimeoutMs: a probe unanswered for this long is replaced by the
	// next request, and waiters should stop waiting. Default 30 000.
	ProbeTimeoutMs int64 `json:"probeTimeoutMs"`
	// BlockWaiters answers the other requests as open while the probe is in
	// flight, instead of making them wait for it.
	BlockWaiters bool `json:"blockWaiters"`
}

// WithDefaults returns p with every zero field set to its default.
func (p Policy) WithDefaults() Policy {
	if p.TTLMs == 0 {
		p.TTLMs = circuit.DefaultTTLMs
	}
	if p.MaxTTLMs == 0 {
		p.MaxTTLMs = circuit.DefaultMaxTTLMs
	}
	if p.ProbeTimeoutMs == 0 {
		p.ProbeTimeoutMs = DefaultProbeTimeoutMs
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
		return policyerr.New(ErrInvalidPolicy, "ttlMs", "must not exceed maxTtlMs")
	case p.ProbeTimeoutMs <= 0:
		return policyerr.New(ErrInvalidPolicy, "probeTimeoutMs", "must be > 0")
	}
	return nil
}

// Decision is the gate's answer for a request the breaker allowed.
type Decision int

const (
	Closed Decision = iota // not half-open: send as usual
	Probe                  // send it as the probe; report with the id
	Wait                   // wait for probe id's outcome, then decide again
	Block                  // answer as open
)

var decisionNames = [...]string{"closed", "probe", "wait", "block"}

func (d Decision) String() string {
	if d >= 0 && int(d) < len(decisionNames) {
		return decisionNames[d]
	}
	return "Decision(?)"
}

// Rearm is what to do with the breaker after a failed probe.
type Rearm struct {
	Status int   // arm with this status
	TTLMs  int64 // for this long
}

// Gate holds the half-open state of one tab.
type Gate struct {
	policy   Policy
	untilMs  int64  // end of the armed period known to the gate; 0 = not armed
	status   int    // the status it was armed with
	failures int    // failed probes in a row
	probe    uint32 // id of the probe in flight; 0 = none
	sentMs   int64  // when the probe in flight was sent
	lastID   uint32
}

// New returns a Gate for p (defaulted, then validated).
func New(p Policy) (*Gate, error) {
	p = p.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Gate{policy: p}, nil
}

// Policy returns the defaulted policy in force.
func (g *Gate) Policy() Policy { return g.policy }

// Armed tells the gate the breaker is armed until untilMs with status.
func (g *Gate) Armed(untilMs int64, status int) {
	g.untilMs, g.status = untilMs, status
	g.probe = 0
}

// Decide answers for a request the breaker allowed at nowMs. For Probe, id
// is the new probe's; for Wait and Block, the probe in flight.
func (g *Gate) Decide(nowMs int64) (d Decision, id uint32) {
	switch {
	case g.policy.Disabled || g.untilMs == 0:
		return Closed, 0
	case nowMs < g.untilMs:
		return Block, 0
	case g.probe != 0 && nowMs-g.sentMs < g.policy.ProbeTimeoutMs:
		if g.policy.BlockWaiters {
			return Block, g.probe
		}
		return Wait, g.probe
	}
	g.lastID++
	if g.lastID == 0 { // 0 means "none"
		g.lastID++
	}
	g.probe, g.sentMs = g.lastID, nowMs
	return Probe, g.probe
}

// Succeeded reports a probe that the gateway answered with anything but a
// trip status: the circuit is closed. It returns false for an id that is not
// the probe in flight (replaced after a timeout, or cleared), which changes
// nothing.
func (g *Gate) Succeeded(id uint32) bool {
	if id == 0 || id != g.probe {
		return false
	}
	g.reset()
	return true
}

// Failed reports a probe answered with a trip status, or failing at the
// network (status 0: the breaker is re-armed with the status it had). The
// caller re-arms the breaker with the result; ok is false, and nothing
// changes, for an id that is not the probe in flight.
func (g *Gate) Failed(nowMs int64, id uint32, status int) (r Rearm, ok bool) {
	if id == 0 || id != g.probe {
		return Rearm{}, false
	}
	if status == 0 {
		status = g.status
	}
	if status == 0 { // armed without a status: say what it is, unavailable
		status = 503
	}
	g.failures++
	ttl := g.policy.TTLMs
	for i := 0; i < g.failures && ttl < g.policy.MaxTTLMs; i++ {
		ttl *= 2
	}
	ttl = min(ttl, g.policy.MaxTTLMs)
	g.Armed(nowMs+ttl, status)
	return Rearm{Status: status, TTLMs: ttl}, true
}

// Abandoned reports a probe aborted by its caller: no verdict, the next
// request becomes the probe.
func (g *Gate) Abandoned(id uint32) {
	if id != 0 && id == g.probe {
		g.probe = 0
	}
}

// Clear forgets everything: the user asked for a fresh attempt.
func (g *Gate) Clear() { g.reset() }

// Idle reports that the gate has nothing to decide: no armed period known,
// no probe out.
func (g *Gate) Idle() bool { return g.policy.Disabled || (g.untilMs == 0 && g.probe == 0) }

// Failures is the number of failed probes in a row.
func (g *Gate) Failures() int { return g.failures }

func (g *Gate) reset() {
	g.untilMs, g.status, g.failures, g.probe = 0, 0, 0, 0
}
