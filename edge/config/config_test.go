package config_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/edge/config"
	"github.com/gatewaycircuit/gatewaycircuit/edge/origin"
)

const example = `{
  "upstream": "https://api.test",
  "services": [{"name": "api", "prefix": "/api/"}, {"name": "search", "prefix": "/api/search/", "cache": {"freshTtlMs": 5000}}],
  "tokens": {"tok-a": "alice"},
  "adminToken": "root"
}`

func TestRoute(t *testing.T) {
	c, err := config.Parse(example)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		method, path, auth, key string
		want                    config.Route
	}{
		{"GET", "/api/items", "", "", config.Route{Kind: config.Cache, Service: "api", Upstream: "https://api.test"}},
		{"GET", "/api/search/q", "", "", config.Route{Kind: config.Cache, Service: "search", Upstream: "https://api.test"}}, // the longest prefix
		{"GET", "/other", "", "", config.Route{Kind: config.Refuse, Status: 404, Code: "no_route"}},
		{"POST", "/api/orders", "", `"k"`, config.Route{Kind: config.Refuse, Status: 401, Code: "unauthorized"}},
		{"POST", "/api/orders", "Bearer nope", `"k"`, config.Route{Kind: config.Refuse, Status: 401, Code: "unauthorized"}},
		{"POST", "/api/orders", "Bearer tok-a", `"k"`, config.Route{Kind: config.Ledger, Service: "api", Principal: "alice", Key: "k", Upstream: "https://api.test", MaxBodyBytes: 1 << 20}},
		{"DELETE", "/api/orders/1", "bearer tok-a", "", config.Route{Kind: config.Pass, Service: "api", Principal: "alice", Upstream: "https://api.test"}},
		{"POST", "/api/orders", "Bearer tok-a", "order_123", config.Route{Kind: config.Ledger, Service: "api", Principal: "alice", Key: "order_123", Upstream: "https://api.test", MaxBodyBytes: 1 << 20}},
		{"POST", "/api/orders", "Bearer tok-a", `"order_123"`, config.Route{Kind: config.Ledger, Service: "api", Principal: "alice", Key: "order_123", Upstream: "https://api.test", MaxBodyBytes: 1 << 20}},
		{"POST", "/api/orders", "Bearer tok-a", "a, b", config.Route{Kind: config.Refuse, Status: 400, Code: "invalid_idempotency_key"}},
		{"POST", "/api/orders", "Bearer tok-a", `"k`, config.Route{Kind: config.Refuse, Status: 400, Code: "invalid_idempotency_key"}},
		{"POST", "/api/orders", "Bearer tok-a", "é", config.Route{Kind: config.Refuse, Status: 400, Code: "invalid_idempotency_key"}},
		{"GET", "/api/..%2fadmin", "", "", config.Route{Kind: config.Refuse, Status: 400, Code: "ambiguous_path"}},
		{"GET", "/api/..;/admin", "", "", config.Route{Kind: config.Refuse, Status: 400, Code: "ambiguous_path"}},
		{"GET", "/api/%2e%2E/admin", "", "", config.Route{Kind: config.Refuse, Status: 400, Code: "ambiguous_path"}},
		{"GET", "/api/a%2f..%2f..", "", "", config.Route{Kind: config.Refuse, Status: 400, Code: "ambiguous_path"}},
		{"GET", "/api/a%5c..%5cadmin", "", "", config.Route{Kind: config.Refuse, Status: 400, Code: "ambiguous_path"}},
		{"GET", "/api/x%2f.%2fy", "", "", config.Route{Kind: config.Refuse, Status: 400, Code: "ambiguous_path"}},
		{"GET", "/api/a%2f..;x", "", "", config.Route{Kind: config.Refuse, Status: 400, Code: "ambiguous_path"}},
		// An encoded "/" or "\" alone names one thing in one segment (npm's scoped packages, GitLab's project ids).
		{"GET", "/api/a%5cb", "", "", config.Route{Kind: config.Cache, Service: "api", Upstream: "https://api.test"}},
		{"GET", "/api/a%2Fb", "", "", config.Route{Kind: config.Cache, Service: "api", Upstream: "https://api.test"}},
		{"GET", "/api/@scope%2fname", "", "", config.Route{Kind: config.Cache, Service: "api", Upstream: "https://api.test"}},
		{"GET", "/api/projects/group%2Fproject/issues", "", "", config.Route{Kind: config.Cache, Service: "api", Upstream: "https://api.test"}},
		{"GET", "/api/v1.2%2Fx..y", "", "", config.Route{Kind: config.Cache, Service: "api", Upstream: "https://api.test"}},
		{"GET", "/api/v1.2/items;x=1", "", "", config.Route{Kind: config.Cache, Service: "api", Upstream: "https://api.test"}},
		{"GET", "/api/na%C3%AFve", "", "", config.Route{Kind: config.Cache, Service: "api", Upstream: "https://api.test"}},
		{"GET", "/api/100%", "", "", config.Route{Kind: config.Refuse, Status: 400, Code: "ambiguous_path"}},
		{"GET", "/api/a%2", "", "", config.Route{Kind: config.Refuse, Status: 400, Code: "ambiguous_path"}},
		{"GET", "/api/a%zz", "", "", config.Route{Kind: config.Refuse, Status: 400, Code: "ambiguous_path"}},
		{"GET", "/api/%2E.", "", "", config.Route{Kind: config.Refuse, Status: 400, Code: "ambiguous_path"}},
		{"POST", "/__edge/jobs/nope", "Bearer root", "", config.Route{Kind: config.Refuse, Status: 404, Code: "no_job"}},
		{"GET", "/__edge/metrics", "Bearer rootx", "", config.Route{Kind: config.Refuse, Status: 401, Code: "admin_unauthorized"}},
		{"GET", "/__edge/metrics", "Bearer roo", "", config.Route{Kind: config.Refuse, Status: 401, Code: "admin_unauthorized"}},
		{"OPTIONS", "/api/orders", "", "", config.Route{Kind: config.Refuse, Status: 405, Code: "method_not_allowed"}},
		{"GET", "/__edge/metrics", "Bearer root", "", config.Route{Kind: config.Admin}},
		{"GET", "/__edge/metrics", "bearer root", "", config.Route{Kind: config.Admin}}, // schemes are case-insensitive
		{"GET", "/__edge/metrics", "BEARER root", "", config.Route{Kind: config.Admin}},
		{"GET", "/__edge/metrics", "Bearer tok-a", "", config.Route{Kind: config.Refuse, Status: 401, Code: "admin_unauthorized"}},
	} {
		if got := c.Route(tc.method, tc.path, tc.auth, tc.key); got != tc.want {
			t.Errorf("%s %s %q %q: %+v, want %+v", tc.method, tc.path, tc.auth, tc.key, got, tc.want)
		}
	}
	if s, _ := c.Service("/api/search/x"); s.Cache.FreshTTLMs != 5000 || s.Cache.MaxStaleMs != 120_000 || s.Upstream != "https://api.test" {
		t.Errorf("defaults not applied: %+v", s)
	}
}

func TestParseNamesTheBadField(t *testing.T) {
	for field, raw := range map[string]string{
		"services":                   `{"upstream": "https://a"}`,
		"services[0].upstream":       `{"services": [{"name": "a", "prefix": "/a/"}]}`,
		"services[1].name":           `{"upstream": "https://a", "services": [{"name": "a", "prefix": "/a/"}, {"name": "a", "prefix": "/b/"}]}`,
		"services[0].prefix":         `{"upstream": "https://a", "services": [{"name": "a", "prefix": "/__edge/x"}]}`,
		"services[0].cache":          `{"upstream": "https://a", "services": [{"name": "a", "prefix": "/a/", "cache": {"maxKeys": -1}}]}`,
		"jobs[0].path":               `{"upstream": "https://a", "services": [{"name": "a", "prefix": "/a/"}], "jobs": [{"name": "j", "path": "x"}]}`,
		"unknown field \"freshTtl\"": `{"upstream": "https://a", "services": [{"name": "a", "prefix": "/a/", "cache": {"freshTtl": 1}}]}`,
	} {
		_, err := config.Parse(raw)
		if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: %v", field, err)
		}
	}
}

func TestPassUnmatched(t *testing.T) {
	c, err := config.Parse(`{"upstream": "https://site.test", "passUnmatched": true, "principalHeader": "x-user", "services": [{"name": "api", "prefix": "/api/"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if r := c.Route("GET", "/index.html", "", ""); r != (config.Route{Kind: config.Pass, Upstream: "https://site.test"}) {
		t.Fatalf("%+v", r)
	}
	if r := c.Route("GET", "/api/x", "", ""); r.Kind != config.Cache {
		t.Fatalf("%+v", r)
	}
	if _, err := config.Parse(`{"upstream": "https://a", "principalHeader": "X-User", "services": [{"name": "a", "prefix": "/a/"}]}`); !errors.Is(err, config.ErrInvalid) {
		t.Fatal("an upper-case principalHeader was accepted")
	}
}

func TestForwardedDropsPrincipalLookAlikes(t *testing.T) {
	c, err := config.Parse(`{"upstream": "https://a", "principalHeader": "x-demo-user", "upstreamHeaders": {"X-Api-Key": "k"}, "services": [{"name": "a", "prefix": "/a/"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	client := origin.Header{{"authorization", "Bearer t"}, {"cookie", "s=1"}, {"x_demo_user", "admin"}, {"x-demo-user", "admin"}, {"X_Demo-User", "admin"}, {"host", "edge"}}
	want := origin.Header{{"authorization", "Bearer t"}, {"cookie", "s=1"}, {"x-api-key", "k"}, {"x-demo-user", "alice"}}
	if got := c.Forwarded(client, "alice", true); !reflect.DeepEqual(got, want) {
		t.Fatalf("%v", got)
	}
	if got := c.Forwarded(client, "", false); !reflect.DeepEqual(got, want[:2]) {
		t.Fatalf("outside every service: %v", got)
	}
}

func TestLocation(t *testing.T) {
	const edge = "https://edge.test"
	for _, tc := range []struct{ upstream, location, want string }{
		{"http://127.0.0.1:9000", "http://127.0.0.1:9000/api/orders/1", "https://edge.test/api/orders/1"},
		{"http://127.0.0.1:9000/", "HTTP://127.0.0.1:9000/api/x?y=1", "https://edge.test/api/x?y=1"},
		{"http://127.0.0.1:9000", "http://127.0.0.1:9000", "https://edge.test/"},
		{"http://127.0.0.1:9000", "http://127.0.0.1:9000?x", "https://edge.test/?x"},
		{"https://api.test/v1", "https://api.test/v1/orders", "https://edge.test/orders"},
		{"https://api.test/v1", "https://api.test/v2/orders", "https://api.test/v2/orders"}, // outside the base: not the edge's to map
		{"https://api.test", "https://api.test.evil/x", "https://api.test.evil/x"},
		{"http://127.0.0.1:9000", "http://127.0.0.1:90001/x", "http://127.0.0.1:90001/x"},
		{"https://api.test", "https://other.test/x", "https://other.test/x"},
		{"https://api.test", "/api/orders/1", "/api/orders/1"},
	} {
		if got := config.Location(tc.location, tc.upstream, edge); got != tc.want {
			t.Errorf("Location(%q, %q) = %q, want %q", tc.location, tc.upstream, got, tc.want)
		}
	}
}
