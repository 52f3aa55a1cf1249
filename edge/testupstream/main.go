// Command testupstream is the upstream API of the edge's tests: it answers
// on 127.0.0.1 and counts every request it gets, so a test can say how many
// reached it. Its behaviour per path is switched at run time:
//
//	POST /__up/mode  {"path": "/api/x", "status": 429, "retryAfter": "10", "delayMs": 0, "body": "[]"}
//	POST /__up/reset                 forget modes and counts
//	GET  /__up/counts                {"GET /api/x": 3, "effects": 1, ...}
//	GET  /__up/seen                  [{"method","uri","header":{name: value}}...]: every request, in order
//
// A mode's "fail": N applies the mode to the first N requests of the path
// only (then it answers as without a mode); a failure with a "status" does
// not act (no effect), one with only "delayMs" acts and answers late. A
// mode's "keys" makes the path honour Idempotency-Keys as an origin ledger
// would: a POST whose key has acted is answered with the same answer again,
// with no new effect.
// A mode's "size" answers 200 with a body of that many bytes ("x"…), sent
// in 64 KiB writes with no Content-Length when "chunked" is set.
// A mode's "location" is sent as the Location header (for 3xx answers); its
// "vary" as Vary, and then the body names the request's Accept.
//
// Without a mode, a GET answers 200 with a small JSON body naming the path
// and the count; a POST is an "effect" (counted under "effects") answered
// 201 with the body it got (its length, "N bytes", when over 64 KiB). "delayMs" holds the answer that long (the count
// is taken before waiting), for tests that need a request in flight.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

type mode struct {
	Path       string `json:"path"`
	Status     int    `json:"status"`
	RetryAfter string `json:"retryAfter"`
	DelayMs    int    `json:"delayMs"`
	Body       string `json:"body"`
	Location   string `json:"location"`
	Vary       string `json:"vary"`
	Size       int    `json:"size"`
	Chunked    bool   `json:"chunked"`
	Fail       int    `json:"fail"`
	Keys       bool   `json:"keys"`
}

// seen is one request as the upstream got it.
type seen struct {
	Method string            `json:"method"`
	URI    string            `json:"uri"`
	Header map[string]string `json:"header"`
}

type server struct {
	mu     sync.Mutex
	modes  map[string]mode
	counts map[string]int
	seen   []seen
	acted  map[string]string // Idempotency-Key → the answer of its effect (paths with "keys")
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback)")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	s := &server{modes: map[string]mode{}, counts: map[string]int{}, seen: []seen{}, acted: map[string]string{}}
	fmt.Println("listening", ln.Addr().String())
	_ = http.Serve(ln, s)
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/__up/mode":
		var m mode
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		s.mu.Lock()
		s.modes[m.Path] = m
		s.mu.Unlock()
		w.WriteHeader(204)
		return
	case "/__up/reset":
		s.mu.Lock()
		s.modes, s.counts, s.seen, s.acted = map[string]mode{}, map[string]int{}, []seen{}, map[string]string{}
		s.mu.Unlock()
		w.WriteHeader(204)
		return
	case "/__up/counts":
		s.mu.Lock()
		b, _ := json.Marshal(s.counts)
		s.mu.Unlock()
		w.Header().Set("content-type", "application/json")
		_, _ = w.Write(b)
		return
	case "/__up/seen":
		s.mu.Lock()
		b, _ := json.Marshal(s.seen)
		s.mu.Unlock()
		w.Header().Set("content-type", "application/json")
		_, _ = w.Write(b)
		return
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	name := r.Method + " " + r.URL.RequestURI()
	s.counts[name]++
	h := map[string]string{}
	for k := range r.Header {
		h[strings.ToLower(k)] = strings.Join(r.Header.Values(k), ", ")
	}
	s.seen = append(s.seen, seen{Method: r.Method, URI: r.URL.RequestURI(), Header: h})
	n := s.counts[name]
	m, hasMode := s.modes[r.URL.Path]
	keys := m.Keys
	if hasMode && m.Fail > 0 {
		s.counts["fails "+r.URL.Path]++
		if s.counts["fails "+r.URL.Path] > m.Fail {
			m, hasMode = mode{}, false
		}
	}
	key := strings.Trim(r.Header.Get("Idempotency-Key"), `"`)
	if answer, ok := s.acted[key]; ok && keys {
		s.mu.Unlock()
		w.Header().Set("content-type", "application/json")
		w.Header().Set("Idempotency-Replayed", "true")
		w.WriteHeader(201)
		_, _ = io.WriteString(w, answer)
		return
	}
	refused := hasMode && m.Fail > 0 && m.Status != 0 // a failure that did not act
	if r.Method != "GET" && !refused {
		s.counts["effects"]++
		if key != "" {
			s.counts["effects "+key]++
			if keys {
				s.acted[key] = fmt.Sprintf(`{"effect":%d,"got":%s}`, n, gist(body))
			}
		}
	}
	s.mu.Unlock()
	if m.DelayMs > 0 {
		time.Sleep(time.Duration(m.DelayMs) * time.Millisecond)
	}
	w.Header().Set("content-type", "application/json")
	w.Header().Set("cache-control", "max-age=0")
	if m.Size > 0 {
		chunk := []byte(strings.Repeat("x", 64<<10))
		if !m.Chunked {
			w.Header().Set("content-length", strconv.Itoa(m.Size))
		}
		for left := m.Size; left > 0; left -= len(chunk) {
			_, _ = w.Write(chunk[:min(left, len(chunk))])
			if f, ok := w.(http.Flusher); ok && m.Chunked {
				f.Flush()
			}
		}
		return
	}
	if m.Location != "" {
		w.Header().Set("location", m.Location)
	}
	if m.Vary != "" {
		w.Header().Set("vary", m.Vary)
		if m.Status == 0 && m.Body == "" {
			_, _ = fmt.Fprintf(w, `{"path":%s,"accept":%s}`, strconv.Quote(r.URL.RequestURI()), strconv.Quote(r.Header.Get("Accept")))
			return
		}
	}
	if hasMode && m.Status != 0 {
		if m.RetryAfter != "" {
			w.Header().Set("retry-after", m.RetryAfter)
		}
		w.WriteHeader(m.Status)
		_, _ = io.WriteString(w, m.Body)
		return
	}
	if hasMode && m.Body != "" {
		_, _ = io.WriteString(w, m.Body)
		return
	}
	if r.Method != "GET" {
		w.WriteHeader(201)
		_, _ = fmt.Fprintf(w, `{"effect":%d,"got":%s}`, n, gist(body))
		return
	}
	_, _ = fmt.Fprintf(w, `{"path":%s,"n":%d}`, strconv.Quote(r.URL.RequestURI()), n)
}

// gist is a request body as an answer repeats it: quoted, or its length
// when large.
func gist(body []byte) string {
	if len(body) > 64<<10 {
		return strconv.Quote(strconv.Itoa(len(body)) + " bytes")
	}
	return strconv.Quote(string(body))
}
