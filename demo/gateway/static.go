package main

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Names of what tools/pack-dist.mjs packs: stable names and their
// content-hashed copies.
var (
	distNames  = regexp.MustCompile(`^gateway-circuit(-facade|-engine)?(\.[0-9a-f]{12})?\.(js|wasm)$`)
	benchNames = regexp.MustCompile(`^(floor|wasm_exec)(\.[0-9a-f]{12})?\.(js|wasm)$`)
)

// servePacked serves a packed folder the way a CDN should: precompressed
// .br/.gz when the client accepts them, application/wasm for the wasm
// (instantiateStreaming refuses anything else), immutable caching for hashed
// names and revalidation for the stable ones. Other names go to other (or 404).
func servePacked(dir string, names *regexp.Regexp, other http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("file")
		m := names.FindStringSubmatch(name)
		if m == nil {
			if name == "manifest.json" {
				w.Header().Set("Cache-Control", "no-cache")
				http.ServeFile(w, r, filepath.Join(dir, name))
				return
			}
			other.ServeHTTP(w, r)
			return
		}
		hash, ext := m[len(m)-2], m[len(m)-1]
		h := w.Header()
		h.Set("Content-Type", map[string]string{"js": "text/javascript; charset=utf-8", "wasm": "application/wasm"}[ext])
		h.Set("Vary", "Accept-Encoding")
		if hash != "" {
			h.Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			h.Set("Cache-Control", "no-cache")
		}
		path := filepath.Join(dir, name)
		accept := r.Header.Get("Accept-Encoding")
		for _, enc := range []struct{ token, ext string }{{"br", ".br"}, {"gzip", ".gz"}} {
			if acceptsEncoding(accept, enc.token) {
				if _, err := os.Stat(path + enc.ext); err == nil {
					h.Set("Content-Encoding", enc.token)
					path += enc.ext
					break
				}
			}
		}
		http.ServeFile(w, r, path)
	}
}

// acceptsEncoding reports whether an Accept-Encoding header allows token
// (a q=0 refuses it).
func acceptsEncoding(header, token string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), token) {
			continue
		}
		params = strings.ReplaceAll(params, " ", "")
		return params != "q=0" && params != "q=0.0" && params != "q=0.00" && params != "q=0.000"
	}
	return false
}

// isolated adds the headers that make a page cross-origin isolated, which
// gives performance.now() 5 µs resolution instead of 100 µs (make bench).
func isolated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cross-Origin-Opener-Policy", "same-origin")
		w.Header().Set("Cross-Origin-Embedder-Policy", "require-corp")
		next.ServeHTTP(w, r)
	})
}

// delayed answers after ?ms= milliseconds (at most 10 s), or when the client
// gives up.
func delayed(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if ms, err := strconv.Atoi(r.URL.Query().Get("ms")); err == nil && ms > 0 {
			select {
			case <-time.After(time.Duration(min(ms, 10_000)) * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		}
		next(w, r)
	}
}
