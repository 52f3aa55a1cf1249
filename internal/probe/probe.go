// Package probe is the single flight of the circuit's half-open phase: when
// the TTL of an armed circuit ends, exactly one request of the tab goes to
// the network as the probe, and the others wait for its outcome (or are
// answered as open) instead of stampeding the gateway at the second it
// comes back.
//
// The half-open phase itself, the doubling of the TTL per failed probe and
// their persistence across reloads belong to circuit.Breaker (its State has
// Strikes and HalfOpenUntil). The Gate only decides which request is the
// probe, so it holds no copy of the breaker's state. The wiring:
//
//   - for an in-scope request the breaker does not block, call
//     Gate.Decide(now, breaker.Phase(now) == circuit.HalfOpen):
//     Closed: send it as usual; Probe: send it, then report the outcome with
//     its id; Wait: wait for probe id's outcome (at most ProbeTimeoutMs),
//     then decide again from the start; Block: answer as open;
//   - every answer goes to breaker.Observe as usual (the breaker closes on
//     the probe's success and re-arms, doubled, on its failure); for the
//     probe, also call Succeeded(id) or Failed(id) to free the slot; a probe
//     aborted by its caller is Abandoned (no verdict: the next request
//     probes);
//   - the user's clear calls Clear.
//
// A reload forgets a probe in flight (the browser cancelled it): the new
// page's first request is the probe. Not safe for concurrent use.
package probe

import (
	"errors"

	"github.com/gatewaycircuit/gatewaycircuit/policy/mode"
	"github.com/gatewaycircuit/gatewaycircuit/policy/policyerr"
)

// DefaultProbeTimeoutMs is how long a probe may stay unanswered before the
// next request replaces it.
const DefaultProbeTimeoutMs = 30_000

// ErrInvalidPolicy is the sentinel for a Policy that fails Validate.
var ErrInvalidPolicy = errors.New("probe: invalid policy")

// Policy configures the gate. The zero Policy is the default behaviour.
type Policy struct {
	// Mode is On (the default) or Off: off, in the half-open phase every
	// request goes at once (the first answer still decides for the breaker).
	Mode mode.Mode `json:"mode"`
	// ProbeTimeoutMs: a probe unanswered for this long is replaced by the
	// next request, and waiters should stop waiting. Default 30 000.
	ProbeTimeoutMs int64 `json:"probeTimeoutMs"`
	// BlockWaiters answers the other requests as open while the probe is in
	// flight, instead of making them wait for it.
	BlockWaiters bool `json:"blockWaiters"`
}

// WithDefaults returns p with every zero field set to its default.
func (p Policy) WithDefaults() Policy {
	p.Mode = p.Mode.Or(mode.On)
	if p.ProbeTimeoutMs == 0 {
		p.ProbeTimeoutMs = DefaultProbeTimeoutMs
	}
	return p
}

// Validate reports the first bad field of a defaulted policy.
func (p Policy) Validate() error {
	if !p.Mode.In(mode.On, mode.Off) {
		return policyerr.New(ErrInvalidPolicy, "mode", "must be on or off")
	}
	if p.ProbeTimeoutMs <= 0 {
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

// Gate holds the probe in flight of one tab.
type Gate struct {
	policy Policy
	probe  uint32 // id of the probe in flight; 0 = none
	sentMs int64  // when the probe in flight was sent
	lastID uint32
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

// Decide answers for a request the breaker allowed at nowMs; halfOpen is
// whether the breaker is in its half-open phase. For Probe, id is the new
// probe's; for Wait and Block, the probe in flight.
func (g *Gate) Decide(nowMs int64, halfOpen bool) (d Decision, id uint32) {
	if !halfOpen {
		g.probe = 0 // the breaker decided (closed, or re-armed): nothing to wait for
		return Closed, 0
	}
	if g.policy.Mode == mode.Off {
		return Closed, 0
	}
	if nowMs < g.sentMs { // the clock went back: the timeout counts from now
		g.sentMs = nowMs
	}
	if g.probe != 0 && nowMs-g.sentMs < g.policy.ProbeTimeoutMs {
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
// trip status. It returns false for an id that is not the probe in flight
// (replaced after a timeout, or cleared), which changes nothing.
func (g *Gate) Succeeded(id uint32) bool { return g.settle(id) }

// Failed reports a probe answered with a trip status, or failing at the
// network. It returns false for an id that is not the probe in flight.
func (g *Gate) Failed(id uint32) bool { return g.settle(id) }

// Abandoned reports a probe aborted by its caller: no verdict, the next
// request becomes the probe.
func (g *Gate) Abandoned(id uint32) { g.settle(id) }

func (g *Gate) settle(id uint32) bool {
	if id == 0 || id != g.probe {
		return false
	}
	g.probe = 0
	return true
}

// Clear forgets the probe in flight: the user asked for a fresh attempt.
func (g *Gate) Clear() { g.probe = 0 }

// InFlight is the probe in flight, or 0.
func (g *Gate) InFlight() uint32 { return g.probe }

// Idle reports that no probe is out.
func (g *Gate) Idle() bool { return g.probe == 0 }
