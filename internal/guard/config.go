package guard

import (
	"github.com/gatewaycircuit/gatewaycircuit/internal/circuit"
)

// ParseConfig reads the configuration the shim hands to the wasm: the
// circuit's settings (circuit.ParseConfig) plus, one per line,
//
//	stale=on|off           stale fallback (default off: it changes what apps see)
//	staleMaxMs=3600000     how old a stale copy may be
//	coalesce=on|off        share identical in-flight GETs (default on)
//	negativeCache=on|off   remember failed GETs (default on)
//	cooldown=on|off        pause a service after a 429 (default on)
//	probe=on|off           one half-open probe at expiry (default on)
//	idempotency=on|off     idempotency keys on mutations (default on)
//	emptyTtl=on|off        longer caching of GETs that keep answering empty (default off)
//
// The error names the setting.
func ParseConfig(text string) (Policy, error) {
	var p Policy
	err := circuit.EachSetting(text, func(key, value string) error {
		if known, err := p.Circuit.SetConfig(key, value); known {
			return err
		}
		var on bool
		switch value {
		case "on":
			on = true
		case "off":
		default:
			if key == "staleMaxMs" {
				ms, err := circuit.ParseMs(key, value)
				p.Stale.MaxStaleMs = ms
				return err
			}
			return &circuit.PolicyError{Field: key, Reason: `want "on" or "off"`}
		}
		switch key {
		case "stale":
			p.Stale.Enabled = on
		case "coalesce":
			p.Coalesce.Disabled = !on
		case "negativeCache":
			p.Negative.Disabled = !on
		case "cooldown":
			p.Cooldown.Disabled = !on
		case "probe":
			p.Probe.Disabled = !on
		case "idempotency":
			p.IdempotencyOff = !on
		case "emptyTtl":
			p.Empty.Enabled = on
		default:
			return &circuit.PolicyError{Field: key, Reason: "unknown setting"}
		}
		return nil
	})
	return p, err
}
