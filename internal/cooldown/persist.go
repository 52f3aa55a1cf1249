package cooldown

import (
	"strconv"
	"strings"

	"github.com/gatewaycircuit/gatewaycircuit/internal/text"
)

// StorageKey is where the pauses are kept (sessionStorage in the browser),
// so that F5 does not lift a pause the server asked for.
const StorageKey = "gateway_cooldown_v1"

// Version changes whenever the remembered services do; a caller persists
// Encode when it moved.
func (c *Cooldown) Version() uint64 { return c.version }

// AskedPrefix starts the line that marks the pause of the service line
// before it as asked for by the server. A reader of the first format (the
// shim's pre-ready gate: "untilMs strikes service" lines, others skipped)
// still reads every pause right, and merely does not know who chose it.
const AskedPrefix = "retry-after "

// MaxStoredStrikes bounds the strikes a stored line may carry: a line with
// more is not one Encode wrote, and Restore skips it.
const MaxStoredStrikes = 64

// Encode writes the services oldest first, one line "untilMs strikes
// service" each, followed by a line "retry-after service" when the server
// asked for that pause with Retry-After.
func (c *Cooldown) Encode() string {
	var b strings.Builder
	for _, k := range c.services.Keys() {
		s, _ := c.services.Peek(k)
		b.WriteString(strconv.FormatInt(s.untilMs, 10))
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(s.strikes))
		b.WriteByte(' ')
		b.WriteString(k)
		b.WriteByte('\n')
		if s.asked {
			b.WriteString(AskedPrefix)
			b.WriteString(k)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Restore replaces the remembered services with what Encode wrote, read at
// nowMs: what is stored is the whole state, and another instance of the tab
// (a frame) may have ended a pause since this one last wrote. Lines that do
// not parse are skipped; a pause further away than MaxPauseMs is clamped to
// it, as the circuit clamps its stored deadline, so a poisoned entry cannot
// hold a service for long; services long forgotten are dropped. A pause
// without its "retry-after" line is one this module chose (ClearChosen ends
// it).
func (c *Cooldown) Restore(raw string, nowMs int64) {
	if c.services.Len() > 0 {
		c.version++
		c.services.Clear()
	}
	for _, line := range strings.Split(raw, "\n") {
		if svc, ok := strings.CutPrefix(line, AskedPrefix); ok {
			if s, known := c.services.Peek(svc); known && !s.asked {
				s.asked = true
				c.put(svc, s)
			}
			continue
		}
		until, rest, ok1 := strings.Cut(line, " ")
		strikes, svc, ok2 := strings.Cut(rest, " ")
		u, ok3 := text.Int(until)
		n, ok4 := text.Int(strikes)
		if !ok1 || !ok2 || !ok3 || !ok4 || n < 0 || n > MaxStoredStrikes || svc == "" {
			continue
		}
		s := service{untilMs: min(u, nowMs+c.policy.MaxPauseMs), strikes: int(n)}
		if c.forgotten(nowMs, s) {
			continue
		}
		c.put(svc, s)
	}
}
