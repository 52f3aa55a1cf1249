package circuit

import (
	"strconv"
	"strings"
)

// ParseConfig reads the policy the shim hands to the wasm at start, one
// "key=value" per line:
//
//	ttlMs=120000
//	maxTtlMs=600000
//	tripStatuses=502,503,504
//	tripWindowMs=3000
//	tripMinFailures=1
//	halfOpenMs=600000
//	scope=https://app.example/api/   (repeatable)
//
// Absent keys keep their defaults. The shim has already resolved data-scope
// against the page; every value is checked again here, and the error names the
// key. The result is defaulted and validated.
func ParseConfig(text string) (Policy, error) {
	var p Policy
	err := EachSetting(text, func(key, value string) error {
		known, err := p.SetConfig(key, value)
		if !known {
			return &PolicyError{Field: key, Reason: "unknown setting"}
		}
		return err
	})
	if err != nil {
		return Policy{}, err
	}
	p = p.WithDefaults()
	return p, p.Validate()
}

// EachSetting calls f with each "key=value" line of text, skipping blank
// lines, and stops at the first error.
func EachSetting(text string, f func(key, value string) error) error {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			return &PolicyError{Field: line, Reason: "expected key=value"}
		}
		if err := f(key, value); err != nil {
			return err
		}
	}
	return nil
}

// SetConfig applies one setting of the ParseConfig format to p. known is
// false for a key that is not the circuit's (another policy may take it).
func (p *Policy) SetConfig(key, value string) (known bool, err error) {
	switch key {
	case "ttlMs":
		p.TTLMs, err = ParseMs(key, value)
	case "maxTtlMs":
		p.MaxTTLMs, err = ParseMs(key, value)
	case "tripStatuses":
		p.TripStatuses, err = parseStatuses(value)
	case "tripWindowMs":
		p.TripWindowMs, err = ParseMs(key, value)
	case "tripMinFailures":
		p.TripMinFailures, err = parseCount(key, value)
	case "halfOpenMs":
		p.HalfOpenMs, err = ParseMs(key, value)
	case "scope":
		p.Scope = append(p.Scope, value)
	default:
		return false, nil
	}
	return true, err
}

// ParseMs reads a positive whole number of milliseconds for setting key.
func ParseMs(key, value string) (int64, error) {
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil || n <= 0 {
		return 0, &PolicyError{Field: key, Reason: strconv.Quote(value) + " is not a positive whole number of milliseconds"}
	}
	return n, nil
}

// parseCount reads a positive whole number for setting key.
func parseCount(key, value string) (int, error) {
	n, err := strconv.Atoi(value)
	if err != nil || n <= 0 {
		return 0, &PolicyError{Field: key, Reason: strconv.Quote(value) + " is not a positive whole number"}
	}
	return n, nil
}

func parseStatuses(value string) ([]int, error) {
	statuses := []int{}
	for _, part := range strings.Split(value, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		n, err := strconv.Atoi(part)
		if err != nil || !validStatus(n) {
			return nil, &PolicyError{Field: "tripStatuses", Reason: strconv.Quote(part) + " is not an HTTP status (100-599)"}
		}
		statuses = append(statuses, n)
	}
	return statuses, nil
}
