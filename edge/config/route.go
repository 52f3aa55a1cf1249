package config

import (
	"strings"

	"github.com/gatewaycircuit/gatewaycircuit/idempotency"
)

// Kind is where a request goes.
type Kind string

const (
	Cache  Kind = "cache"  // a GET, to its service's cache (one Durable Object per service)
	Ledger Kind = "ledger" // a mutation with an Idempotency-Key, to its principal's ledger
	Pass   Kind = "pass"   // a mutation without a key (or, with PassUnmatched, a path outside every service): forwarded as it is
	Admin  Kind = "admin"  // /__edge/…: metrics, jobs, the test clock
	Refuse Kind = "refuse" // answered at once with Status
)

// Route is the front worker's decision for one request.
type Route struct {
	Kind      Kind   `json:"kind"`
	Service   string `json:"service,omitempty"`
	Principal string `json:"principal,omitempty"`
	Key       string `json:"key,omitempty"`      // the idempotency key, parsed
	Upstream  string `json:"upstream,omitempty"` // the service's base URL (Cache, Pass, Ledger)
	// MaxBodyBytes bounds the request body a Ledger route reads (the
	// ledger's maxBodyBytes): a larger one is refused with 413 unread.
	MaxBodyBytes int64  `json:"maxBodyBytes,omitempty"`
	Status       int    `json:"status,omitempty"`
	Code         string `json:"code,omitempty"`
}

// Route decides where a request goes. Authorization runs here, before any
// Durable Object sees the request: a mutation whose principal is unknown
// (never known, or revoked) gets 401 and never reaches a replay.
func (c *Config) Route(method, path, authorization, idempotencyKey string) Route {
	if ambiguous(path) {
		return Route{Kind: Refuse, Status: 400, Code: "ambiguous_path"}
	}
	if strings.HasPrefix(path, "/__edge/") {
		if !c.IsAdmin(authorization) {
			return Route{Kind: Refuse, Status: 401, Code: "admin_unauthorized"}
		}
		if name, ok := strings.CutPrefix(path, "/__edge/jobs/"); ok {
			if _, ok := c.Job(name); !ok {
				return Route{Kind: Refuse, Status: 404, Code: "no_job"}
			}
		}
		return Route{Kind: Admin}
	}
	svc, ok := c.Service(path)
	if !ok && c.PassUnmatched {
		return Route{Kind: Pass, Upstream: c.Upstream}
	}
	if !ok {
		return Route{Kind: Refuse, Status: 404, Code: "no_route"}
	}
	switch method {
	case "GET", "HEAD":
		return Route{Kind: Cache, Service: svc.Name, Upstream: svc.Upstream}
	case "POST", "PUT", "PATCH", "DELETE":
	default:
		return Route{Kind: Refuse, Status: 405, Code: "method_not_allowed"}
	}
	principal := c.Authenticate(authorization)
	if principal == "" {
		return Route{Kind: Refuse, Status: 401, Code: "unauthorized"}
	}
	if idempotencyKey == "" {
		return Route{Kind: Pass, Service: svc.Name, Principal: principal, Upstream: svc.Upstream}
	}
	key, err := idempotency.ParseKey(idempotencyKey)
	if err != nil {
		return Route{Kind: Refuse, Status: 400, Code: "invalid_idempotency_key"}
	}
	return Route{Kind: Ledger, Service: svc.Name, Principal: principal, Key: key, Upstream: svc.Upstream, MaxBodyBytes: int64(c.Ledger.MaxBodyBytes)}
}

// ambiguous reports a path an upstream may read as another path than the
// one the edge routed: a segment that is "." or ".." once percent-decoded
// or cut at ";" (servlet containers drop ";params": "/api/..;/admin"), or
// one that holds such a part once its encoded "/" or "\\" are read as
// separators, as some proxies and frameworks decode them before routing
// ("/api/..%2fadmin", "/api/a%2f..%2f.."), or an invalid escape. An encoded
// "/" alone is no ambiguity: "@scope%2fname" and "group%2Fproject" name one
// thing in one segment, and are forwarded (and cached) as sent.
func ambiguous(path string) bool {
	for seg := range strings.SplitSeq(path, "/") {
		if !strings.ContainsAny(seg, ".%;") {
			continue
		}
		decoded, ok := unescape(seg)
		if !ok {
			return true
		}
		for part := range strings.FieldsFuncSeq(decoded, func(r rune) bool { return r == '/' || r == '\\' }) {
			part, _, _ = strings.Cut(part, ";")
			if part == "." || part == ".." {
				return true
			}
		}
	}
	return false
}

// unescape decodes a path segment's %XX escapes; ok is false for a
// malformed one. (net/url would do, at a size cost in the worker's wasm.)
func unescape(seg string) (string, bool) {
	if !strings.Contains(seg, "%") {
		return seg, true
	}
	out := make([]byte, 0, len(seg))
	for i := 0; i < len(seg); i++ {
		if seg[i] != '%' {
			out = append(out, seg[i])
			continue
		}
		if i+2 >= len(seg) {
			return "", false
		}
		hi, lo := unhex(seg[i+1]), unhex(seg[i+2])
		if hi < 0 || lo < 0 {
			return "", false
		}
		out = append(out, byte(hi<<4|lo))
		i += 2
	}
	return string(out), true
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return int(c - 'A' + 10)
	}
	return -1
}
