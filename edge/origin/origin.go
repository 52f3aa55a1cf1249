// Package origin is the edge's view of the upstream API it protects: one
// request, one buffered answer. The worker implements Client over the
// Workers fetch API; host tests use a fake.
package origin

import (
	"context"
	"errors"
	"strings"
)

// Header is a list of fields in order; names are in lower case (as the
// Fetch API's Headers iterate them).
type Header [][2]string

// Get returns the first value of name (lower case), or "".
func (h Header) Get(name string) string {
	for _, f := range h {
		if f[0] == name {
			return f[1]
		}
	}
	return ""
}

// Set replaces every field called name by one with value.
func (h Header) Set(name, value string) Header {
	out := h[:0:0]
	for _, f := range h {
		if f[0] != name {
			out = append(out, f)
		}
	}
	return append(out, [2]string{name, value})
}

// Request is what the edge sends upstream.
type Request struct {
	Method string
	URL    string
	Header Header
	Body   []byte
	// MaxBodyBytes, when > 0, bounds the answer's body that is read: a
	// larger one is not read into memory but held (Response.Held).
	MaxBodyBytes int64
}

// Response is an answer with its body read, or held.
type Response struct {
	Status int
	Header Header
	Body   []byte
	// Held, when not 0, says the body was larger than the request's
	// MaxBodyBytes: it was not read, and the worker's JS side holds the
	// answer under this id, for one caller to stream through.
	Held int
}

// ErrUnreachable is the sentinel for a request that got no answer (network
// error, timeout).
var ErrUnreachable = errors.New("origin: unreachable")

// Client sends one request and reads the whole answer. An error means no
// answer; any status, 5xx included, is an answer.
type Client interface {
	Fetch(ctx context.Context, req Request) (Response, error)
}

// stored lists the answer's fields worth keeping with a cached copy or a
// recorded answer: what describes the body or where it points, not the
// connection it came over.
var stored = []string{"content-type", "content-language", "cache-control", "etag", "last-modified", "vary", "link", "location", "retry-after"}

// Keep returns the fields of h worth storing with a cached body.
func Keep(h Header) Header {
	var out Header
	for _, f := range h {
		for _, s := range stored {
			if f[0] == s {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// Encode writes h as "name: value" lines, for storage.
func Encode(h Header) string {
	var b strings.Builder
	for _, f := range h {
		b.WriteString(f[0])
		b.WriteString(": ")
		b.WriteString(strings.ReplaceAll(f[1], "\n", " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// Decode reads what Encode wrote.
func Decode(s string) Header {
	var h Header
	for line := range strings.SplitSeq(s, "\n") {
		if name, value, ok := strings.Cut(line, ": "); ok && name != "" {
			h = append(h, [2]string{name, value})
		}
	}
	return h
}
