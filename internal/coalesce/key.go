package coalesce

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gatewaycircuit/gatewaycircuit/policy/fnv"
	"github.com/gatewaycircuit/gatewaycircuit/policy/text"
)

// Header is one request header as fetch's Headers iterates it: the name in
// any case, values of the same name already combined.
type Header struct{ Name, Value string }

// DeadlineHeader is the pseudo-header in which the JS glue passes a call's
// own deadline (its `timeout` option). It is no part of a request's key — the
// request is the same — but calls whose deadlines differ never share a
// flight (FlightKey), so that each caller keeps its own.
const DeadlineHeader = ":timeout"

// FlightKey is the key under which a request with key shares a flight: the
// key, and the deadline its caller gave, if any.
func FlightKey(key string, headers []Header) string {
	for _, h := range headers {
		if h.Name == DeadlineHeader {
			return key + "\n" + DeadlineHeader + ": " + h.Value
		}
	}
	return key
}

// credentials are the headers whose values never appear in a key: they are
// replaced by a hash, so that keys can be logged and shown.
var credentials = []string{"authorization", "cookie", "proxy-authorization"}

// Key returns the coalescing key of a request, and false when the method is
// not one that coalesces (only GET and HEAD do).
//
// Two requests share a key when their method, URL and request headers are
// the same, header names compared without case and in any order, except the
// headers in p.Ignore (per-request tracing ids that would make every request
// unique). Every other header counts, so that a header the app uses to vary
// the response (X-Tenant, Accept-Language, ...) can never make one caller
// receive another's answer. The values of Authorization, Cookie and
// Proxy-Authorization go into the key as a 64-bit FNV-1a hash. Request
// options that change the response (credentials mode, for one) can be
// passed by the JS glue as pseudo-headers (":credentials": "include").
func (p Policy) Key(method, url string, headers []Header) (string, bool) {
	if method != "GET" && method != "HEAD" {
		return "", false
	}
	lines := make([]string, 0, len(headers))
	for _, h := range headers {
		name := text.Lower(text.TrimSpace(h.Name))
		if name == "" || name == DeadlineHeader || slices.Contains(p.Ignore, name) {
			continue
		}
		value := text.TrimSpace(h.Value)
		if slices.Contains(credentials, name) {
			value = "#" + strconv.FormatUint(fnv.Sum64a(value), 16)
		}
		lines = append(lines, name+": "+value)
	}
	sortLines(lines)
	var b strings.Builder
	b.WriteString(method)
	b.WriteByte(' ')
	b.WriteString(url)
	for _, l := range lines {
		b.WriteByte('\n')
		b.WriteString(l)
	}
	return b.String(), true
}

// ParseHeaders reads headers written one per line as "name: value" (how the
// JS glue passes them through the wasm buffer). Lines without a colon, or
// with an empty name, are skipped; "\r\n" line ends are accepted.
func ParseHeaders(block string) []Header {
	var hs []Header
	for block != "" {
		var line string
		line, block, _ = strings.Cut(block, "\n")
		line = strings.TrimSuffix(line, "\r")
		if line == "" {
			continue
		}
		// A leading colon belongs to the name of a pseudo-header (":credentials").
		i := strings.IndexByte(line[1:], ':') + 1
		name := text.TrimSpace(line[:max(i, 0)])
		if i <= 0 || name == "" || name == ":" {
			continue
		}
		hs = append(hs, Header{Name: name, Value: text.TrimSpace(line[i+1:])})
	}
	return hs
}

// sortLines is an insertion sort: a request has a handful of headers, and
// slices.Sort would add its generic pdqsort to the wasm.
func sortLines(lines []string) {
	for i := 1; i < len(lines); i++ {
		for j := i; j > 0 && lines[j] < lines[j-1]; j-- {
			lines[j], lines[j-1] = lines[j-1], lines[j]
		}
	}
}
