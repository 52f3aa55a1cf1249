package config

import "github.com/gatewaycircuit/gatewaycircuit/internal/idempotency"

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
	Upstream  string `json:"upstream,omitempty"` // the service's base URL (Pass, Ledger)
	Status    int    `json:"status,omitempty"`
	Code      string `json:"code,omitempty"`
}

// Route decides where a request goes. Authorization runs here, before any
// Durable Object sees the request: a mutation whose principal is unknown
// (never known, or revoked) gets 401 and never reaches a replay.
func (c *Config) Route(method, path, authorization, idempotencyKey string) Route {
	if len(path) >= 8 && path[:8] == "/__edge/" {
		if !c.IsAdmin(authorization) {
			return Route{Kind: Refuse, Status: 401, Code: "admin_unauthorized"}
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
		return Route{Kind: Cache, Service: svc.Name}
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
	key, err := idempotency.ParseHeader(idempotencyKey)
	if err != nil {
		return Route{Kind: Refuse, Status: 400, Code: "invalid_idempotency_key"}
	}
	return Route{Kind: Ledger, Service: svc.Name, Principal: principal, Key: key, Upstream: svc.Upstream}
}
