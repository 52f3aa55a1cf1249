package stale

import (
	"strings"

	"github.com/gatewaycircuit/gatewaycircuit/policy/text"
)

// MaxDeltaSeconds is where a delta-seconds value saturates (RFC 9111 §1.2.2).
const MaxDeltaSeconds = 1 << 31

// CacheControl is the part of a Cache-Control response header the stale
// fallback reads. Absent (or malformed) numbers are -1.
type CacheControl struct {
	MaxAge       int64 // seconds the response is fresh
	StaleIfError int64 // seconds past freshness it may still be served on an error (RFC 5861)
	NoStore      bool  // the server forbids keeping it
}

// ParseCacheControl reads max-age, stale-if-error and no-store from a
// Cache-Control header value. Directive names are case-insensitive; values
// may be tokens or quoted strings (commas inside quotes do not split); the
// first occurrence of a directive wins; a malformed number is ignored.
func ParseCacheControl(v string) CacheControl {
	cc := CacheControl{MaxAge: -1, StaleIfError: -1}
	for v != "" {
		var d string
		d, v = nextDirective(v)
		name, value, hasValue := strings.Cut(d, "=")
		name = text.TrimSpace(name)
		value = unquote(text.TrimSpace(value))
		switch {
		case equalFold(name, "no-store"):
			cc.NoStore = true
		case equalFold(name, "max-age") && cc.MaxAge < 0 && hasValue:
			cc.MaxAge = deltaSeconds(value)
		case equalFold(name, "stale-if-error") && cc.StaleIfError < 0 && hasValue:
			cc.StaleIfError = deltaSeconds(value)
		}
	}
	return cc
}

// nextDirective splits off the first comma-separated directive, skipping
// commas inside a quoted string.
func nextDirective(v string) (directive, rest string) {
	quoted := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case c == ',' && !quoted:
			return v[:i], v[i+1:]
		}
	}
	return v, ""
}

// equalFold compares a directive name to a lower-case ASCII one. Unlike
// strings.EqualFold it does not fold non-ASCII letters ("ſ" is not "s").
func equalFold(name, lower string) bool {
	if len(name) != len(lower) {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

// deltaSeconds reads 1*DIGIT, saturating at MaxDeltaSeconds; -1 if malformed.
func deltaSeconds(s string) int64 {
	if s == "" {
		return -1
	}
	var n int64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return -1
		}
		n = min(n*10+int64(s[i]-'0'), MaxDeltaSeconds)
	}
	return n
}
