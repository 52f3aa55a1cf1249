// Package config is the edge's configuration: the upstream, the routes to
// services, the per-service cache policy, the ledger policy, and the auth
// hook (static tokens in this build). It is plain JSON, with every default
// applied in one place (WithDefaults) and a Validate that names the bad
// field. The worker reads it from the EDGE_CONFIG text binding.
package config

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/gatewaycircuit/gatewaycircuit/edge/cache"
	"github.com/gatewaycircuit/gatewaycircuit/edge/origin"
	"github.com/gatewaycircuit/gatewaycircuit/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/policy/policyerr"
)

// ErrInvalid is the sentinel for a configuration that fails Validate.
var ErrInvalid = errors.New("edge config: invalid")

// DefaultUpstreamTimeoutMs bounds one upstream request.
const DefaultUpstreamTimeoutMs = 10_000

// Service is one upstream service: the GET requests under Prefix share one
// cache (one Durable Object).
type Service struct {
	// Name identifies the service (its Durable Object is named after it).
	Name string `json:"name"`
	// Prefix is the path the service answers under, e.g. "/api/".
	Prefix string `json:"prefix"`
	// Upstream overrides Config.Upstream for this service.
	Upstream string `json:"upstream"`
	// Cache is the GET cache policy; zero fields take cache's defaults.
	Cache cache.Policy `json:"cache"`
}

// Job is a background job guarded by a lease: one run at a time.
type Job struct {
	Name string `json:"name"`
	// Path is requested on the upstream (POST) for each step of a run.
	Path string `json:"path"`
	// Steps is how many requests one run makes; the lease is renewed
	// between them. Default 1.
	Steps int `json:"steps"`
	// LeaseMs is how long the lease holds without a renewal. Default 30 000.
	LeaseMs int64 `json:"leaseMs"`
}

// Config is the whole configuration.
type Config struct {
	// Upstream is the base URL of the protected API, e.g. "https://api.example".
	Upstream string `json:"upstream"`
	// UpstreamHeaders are added to every upstream request (an API key).
	UpstreamHeaders map[string]string `json:"upstreamHeaders"`
	// UpstreamTimeoutMs bounds one upstream request. Default 10 000.
	UpstreamTimeoutMs int64 `json:"upstreamTimeoutMs"`
	// Services, matched by the longest Prefix.
	Services []Service `json:"services"`
	// Ledger is the idempotency ledger policy.
	Ledger idempotency.Policy `json:"ledger"`
	// Tokens is the auth hook of this build: bearer token → principal.
	// Replace Authenticate to use anything else; a token missing here is
	// refused before any replay.
	Tokens map[string]string `json:"tokens"`
	// PrincipalHeader, when set, tells the upstream who the caller is: the
	// edge sets it to the authenticated principal on every mutation it
	// forwards (a client's own value is dropped first).
	PrincipalHeader string `json:"principalHeader"`
	// PassUnmatched forwards requests outside every service untouched and
	// uncached (a site served from the same origin as its API); without it
	// they get 404.
	PassUnmatched bool `json:"passUnmatched"`
	// AdminToken guards /__edge/ (metrics, jobs). Empty: no admin endpoint.
	AdminToken string `json:"adminToken"`
	// Jobs are the lease-guarded background jobs.
	Jobs []Job `json:"jobs"`
	// TestClock lets the admin endpoint move the edge's clock forward. For
	// tests only; never set it in production.
	TestClock bool `json:"testClock"`
}

// Parse reads a JSON configuration, applies the defaults and validates it.
func Parse(raw string) (*Config, error) {
	var c Config
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, errors.Join(ErrInvalid, err)
	}
	c = c.WithDefaults()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	if c.UpstreamTimeoutMs == 0 {
		c.UpstreamTimeoutMs = DefaultUpstreamTimeoutMs
	}
	c.Services = append([]Service(nil), c.Services...)
	for i := range c.Services {
		c.Services[i].Cache = c.Services[i].Cache.WithDefaults()
		if c.Services[i].Upstream == "" {
			c.Services[i].Upstream = c.Upstream
		}
	}
	c.Ledger = c.Ledger.WithDefaults()
	c.Jobs = append([]Job(nil), c.Jobs...)
	for i := range c.Jobs {
		if c.Jobs[i].Steps == 0 {
			c.Jobs[i].Steps = 1
		}
		if c.Jobs[i].LeaseMs == 0 {
			c.Jobs[i].LeaseMs = 30_000
		}
	}
	return c
}

// Validate reports the first bad field of a defaulted configuration.
func (c Config) Validate() error {
	if c.PrincipalHeader != strings.ToLower(c.PrincipalHeader) {
		return policyerr.New(ErrInvalid, "principalHeader", "must be in lower case")
	}
	if c.PassUnmatched && !strings.HasPrefix(c.Upstream, "http://") && !strings.HasPrefix(c.Upstream, "https://") {
		return policyerr.New(ErrInvalid, "upstream", "must be an http(s) URL with passUnmatched")
	}
	if c.UpstreamTimeoutMs <= 0 {
		return policyerr.New(ErrInvalid, "upstreamTimeoutMs", "must be > 0")
	}
	if len(c.Services) == 0 {
		return policyerr.New(ErrInvalid, "services", "must list at least one service")
	}
	names := map[string]bool{}
	for i, s := range c.Services {
		field := "services[" + strconv.Itoa(i) + "]"
		switch {
		case s.Name == "" || names[s.Name]:
			return policyerr.New(ErrInvalid, field+".name", "must be non-empty and unique")
		case !strings.HasPrefix(s.Prefix, "/") || strings.HasPrefix(s.Prefix, "/__edge/"):
			return policyerr.New(ErrInvalid, field+".prefix", "must start with / and not with /__edge/")
		case !strings.HasPrefix(s.Upstream, "http://") && !strings.HasPrefix(s.Upstream, "https://"):
			return policyerr.New(ErrInvalid, field+".upstream", "must be an http(s) URL (or set upstream)")
		}
		if err := s.Cache.Validate(); err != nil {
			return errors.Join(policyerr.New(ErrInvalid, field+".cache", "is invalid"), err)
		}
		names[s.Name] = true
	}
	if err := c.Ledger.Validate(); err != nil {
		return errors.Join(policyerr.New(ErrInvalid, "ledger", "is invalid"), err)
	}
	for i, j := range c.Jobs {
		field := "jobs[" + strconv.Itoa(i) + "]"
		switch {
		case j.Name == "":
			return policyerr.New(ErrInvalid, field+".name", "must be non-empty")
		case !strings.HasPrefix(j.Path, "/"):
			return policyerr.New(ErrInvalid, field+".path", "must start with /")
		case j.Steps <= 0 || j.LeaseMs <= 0:
			return policyerr.New(ErrInvalid, field, "steps and leaseMs must be > 0")
		}
	}
	return nil
}

// Service returns the service whose Prefix is the longest one path starts
// with.
func (c *Config) Service(path string) (*Service, bool) {
	var best *Service
	for i := range c.Services {
		s := &c.Services[i]
		if strings.HasPrefix(path, s.Prefix) && (best == nil || len(s.Prefix) > len(best.Prefix)) {
			best = s
		}
	}
	return best, best != nil
}

// Job returns the job called name.
func (c *Config) Job(name string) (*Job, bool) {
	for i := range c.Jobs {
		if c.Jobs[i].Name == name {
			return &c.Jobs[i], true
		}
	}
	return nil, false
}

// Authenticate is the auth hook: the principal an Authorization header
// names, or "" when it names none. This build knows static bearer tokens.
func (c *Config) Authenticate(authorization string) string {
	scheme, token, ok := strings.Cut(strings.TrimSpace(authorization), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return ""
	}
	return c.Tokens[strings.TrimSpace(token)]
}

// IsAdmin reports whether an Authorization header carries the admin token.
// The tokens are compared by their SHA-256 digests in constant time, so the
// time taken tells nothing of how much of a guess was right, nor of the
// token's length.
func (c *Config) IsAdmin(authorization string) bool {
	scheme, token, ok := strings.Cut(strings.TrimSpace(authorization), " ")
	if c.AdminToken == "" || !ok || !strings.EqualFold(scheme, "bearer") {
		return false
	}
	got, want := sha256.Sum256([]byte(token)), sha256.Sum256([]byte(c.AdminToken))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

// Location is an answer's Location as the edge's caller reads it: an
// absolute URL under the upstream's base URL is rewritten to the same path
// on the edge's origin (edgeOrigin, e.g. "https://edge.example"), as
// nginx's proxy_redirect default does, so that a redirect neither sends the
// client around the edge nor tells it the upstream's address. Any other
// Location (relative, or on another origin) is left as the upstream sent it.
func Location(location, upstream, edgeOrigin string) string {
	base := strings.TrimSuffix(upstream, "/")
	if len(location) < len(base) || !strings.EqualFold(location[:len(base)], base) {
		return location
	}
	rest := location[len(base):]
	if rest != "" && !strings.ContainsRune("/?#", rune(rest[0])) {
		return location // another host that starts alike ("api.test.evil")
	}
	if rest == "" || rest[0] != '/' {
		rest = "/" + rest
	}
	return edgeOrigin + rest
}

// connectionFields are the client's header fields that describe its own
// connection to the edge, not the request: the upstream request sets its own.
var connectionFields = []string{"host", "content-length", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "upgrade"}

// Forwarded returns the header a request forwarded as it is carries
// upstream: a mutation, keyed or not (the same either way, its
// Authorization and Cookie included, so an origin that authenticates its
// users sees them on every mutation), or a path outside every service.
// Dropped: the client's connection fields, and every field a stack could
// read as PrincipalHeader (the header itself, and look-alikes such as
// "x_demo_user", which stacks that fold "_" into "-" read as "x-demo-user").
// Added: UpstreamHeaders on a service's paths (toService), and the
// authenticated principal.
func (c *Config) Forwarded(client origin.Header, principal string, toService bool) origin.Header {
	var out origin.Header
	for _, f := range client {
		name := strings.ToLower(f[0])
		if slices.Contains(connectionFields, name) || c.PrincipalHeader != "" && strings.ReplaceAll(name, "_", "-") == c.PrincipalHeader {
			continue
		}
		out = append(out, [2]string{name, f[1]})
	}
	if toService {
		for k, v := range c.UpstreamHeaders {
			out = out.Set(strings.ToLower(k), v)
		}
	}
	if c.PrincipalHeader != "" && principal != "" {
		out = out.Set(c.PrincipalHeader, principal)
	}
	return out
}
