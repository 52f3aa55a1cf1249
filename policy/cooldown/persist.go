package cooldown

import (
	"strings"

	"github.com/gatewaycircuit/gatewaycircuit/policy/line"
)

// StorageKey is where the pauses are kept (sessionStorage in the browser),
// so that F5 does not lift a pause the server asked for.
const StorageKey = "gateway_cooldown_v1"

// Version changes whenever the remembered services do; a caller persists
// Encode when it moved.
func (c *Cooldown) Version() uint64 { return c.version }

// MaxStoredStrikes bounds the strikes a stored line may carry: a line with
// more is not one Encode wrote, and Restore skips it.
const MaxStoredStrikes = 64

// Encode writes the services oldest first, one line.Pause line each,
// followed by a line.Asked line when the server asked for that pause with
// Retry-After (a reader that skips those still reads every pause right).
func (c *Cooldown) Encode() string {
	var b []byte
	for _, k := range c.services.Keys() {
		s, _ := c.services.Peek(k)
		b = line.AppendPause(b, line.Pause{UntilMs: s.untilMs, Strikes: int64(s.strikes), Service: k})
		if s.asked {
			b = line.AppendAsked(b, line.Asked{Service: k})
		}
	}
	return string(b)
}

// Restore replaces the remembered services with what Encode wrote, read at
// nowMs: what is stored is the whole state, and another instance of the tab
// (a frame) may have ended a pause since this one last wrote. Lines that do
// not parse are skipped; a pause further away than MaxPauseMs is clamped to
// it, as the circuit clamps its stored deadline, so a poisoned entry cannot
// hold a service for long; services long forgotten are dropped. A pause
// without its Asked line is one this module chose (ClearChosen ends it).
func (c *Cooldown) Restore(raw string, nowMs int64) {
	if c.services.Len() > 0 {
		c.version++
		c.services.Clear()
	}
	for _, l := range strings.Split(raw, "\n") {
		if a, ok := line.ParseAsked(l); ok {
			if s, known := c.services.Peek(a.Service); known && !s.asked {
				s.asked = true
				c.put(a.Service, s)
			}
			continue
		}
		p, ok := line.ParsePause(l)
		if !ok || p.Strikes < 0 || p.Strikes > MaxStoredStrikes || p.Service == "" {
			continue
		}
		s := service{untilMs: min(p.UntilMs, nowMs+c.policy.MaxPauseMs), strikes: int(p.Strikes)}
		if c.forgotten(nowMs, s) {
			continue
		}
		c.put(p.Service, s)
	}
}
