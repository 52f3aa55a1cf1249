package main

import (
	"encoding/json"
	"html/template"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Dirs are where the served files live.
type Dirs struct {
	Dist string // dist/: gateway-circuit.js and .wasm
	App  string // build/demo/: the bundled demo page script
	Web  string // demo/web/: the page template
	// Bench, when set, is served under /bench/ with cross-origin isolation.
	Bench string
	Data  string // the orders database (SQLite) lives here
}

// Mode is the fake API's behaviour, switched with /__admin/mode.
type Mode struct {
	Status     int `json:"status"`     // response status; 200 = ok
	RetryAfter int `json:"retryAfter"` // seconds, sent when > 0
	DelayMs    int `json:"delayMs"`    // wait before answering ("slow")
}

// Server is the demo gateway.
type Server struct {
	dirs   Dirs
	mux    *http.ServeMux
	page   *template.Template
	orders *orders // POST /api/orders behind the idempotency ledger

	mu     sync.Mutex     // guards mode, counts and apiRate
	mode   Mode           //
	counts map[string]int // requests that reached the fake API, per path
	// apiRate is the requests under /api/ per second: the demo page's chart.
	apiRate rate
	now     func() time.Time
}

// NewServer returns a gateway in mode ok with zero counts. Its orders
// endpoint keeps its SQLite database under d.Data; Close closes it.
func NewServer(d Dirs) (*Server, error) {
	s := &Server{dirs: d, mux: http.NewServeMux(), mode: Mode{Status: 200}, counts: map[string]int{}, now: time.Now}
	s.page = template.Must(template.ParseFiles(filepath.Join(d.Web, "index.html")))
	s.mux.HandleFunc("GET /{$}", s.servePage)
	s.mux.HandleFunc("GET /{file}", servePacked(d.Dist, distNames, http.NotFoundHandler()))
	// The same files, answered late (?ms=): a slow network, for measuring
	// what requests cost while the wasm is still on its way (make bench).
	s.mux.HandleFunc("GET /slow/{file}", delayed(servePacked(d.Dist, distNames, http.NotFoundHandler())))
	s.mux.HandleFunc("GET /app.js", s.file(d.App, "app.js", "text/javascript; charset=utf-8"))
	if d.Bench != "" {
		// make bench: its pages, the floor program and the plain-JS yardstick.
		files := http.StripPrefix("/bench/", http.FileServer(http.Dir(d.Bench)))
		s.mux.Handle("GET /bench/{file}", isolated(servePacked(d.Bench, benchNames, files)))
	}
	s.mux.HandleFunc("/api/", s.serveAPI)
	s.mux.HandleFunc("/outside/", s.serveAPI)
	s.mux.HandleFunc("GET /__admin/mode", s.getMode)
	s.mux.HandleFunc("POST /__admin/mode", s.setMode)
	s.mux.HandleFunc("GET /__admin/counts", s.getCounts)
	s.mux.HandleFunc("POST /__admin/reset", s.reset)
	mountFaults(s.mux, d) // /fault/: the reliability tests (faults.go)
	o, err := openOrders(d.Data)
	if err != nil {
		return nil, err
	}
	s.orders = o
	if err := o.register(s.mux); err != nil { // POST /api/orders, exactly once per Idempotency-Key
		o.Close()
		return nil, err
	}
	return s, nil
}

// Close releases the orders database.
func (s *Server) Close() error { return s.orders.Close() }

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// pageParams are the demo page's knobs, taken from its query string so that
// a reload keeps them.
type pageParams struct {
	Wasm, Scope, TTL, MaxTTL, Trip, Stale, Empty, Negative string
	Queries                                                int
}

func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p := pageParams{
		Wasm:     or(q.Get("wasm"), "/gateway-circuit.wasm"),
		Scope:    or(q.Get("scope"), "/api/"),
		TTL:      q.Get("ttl"),
		MaxTTL:   q.Get("maxTtl"),
		Trip:     q.Get("trip"),
		Stale:    q.Get("stale"),
		Empty:    q.Get("empty"),
		Negative: q.Get("negative"),
		Queries:  6,
	}
	if n, err := strconv.Atoi(q.Get("queries")); err == nil && n >= 0 && n <= 200 {
		p.Queries = n
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err := s.page.Execute(w, p); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

func (s *Server) file(dir, name, contentType string) http.HandlerFunc {
	path := filepath.Join(dir, name)
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeFile(w, r, path)
	}
}

func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.counts[r.URL.Path]++
	n := s.counts[r.URL.Path]
	if strings.HasPrefix(r.URL.Path, "/api/") {
		s.apiRate.add(s.now().Unix())
	}
	m := s.mode
	s.mu.Unlock()

	if m.DelayMs > 0 {
		select {
		case <-time.After(time.Duration(m.DelayMs) * time.Millisecond):
		case <-r.Context().Done():
			return
		}
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	// no-cache, not no-store: the browser asks every time, and a client may
	// keep a copy to fall back on (data-stale); no-store would forbid that.
	h.Set("Cache-Control", "no-cache")
	if m.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(m.RetryAfter))
	}
	w.WriteHeader(m.Status)
	if strings.HasSuffix(r.URL.Path, "/empty") && m.Status == http.StatusOK {
		_, _ = io.WriteString(w, "[]\n") // an empty collection (data-empty-ttl)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"path": r.URL.Path, "n": n, "status": m.Status})
}

func (s *Server) getMode(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	m := s.mode
	s.mu.Unlock()
	writeJSON(w, m)
}

// setMode takes ?status=502&retryAfter=5&delayMs=1000 (absent = 0; status
// absent = 200).
func (s *Server) setMode(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	m := Mode{Status: 200}
	for _, f := range []struct {
		name string
		dst  *int
		max  int
	}{{"status", &m.Status, 599}, {"retryAfter", &m.RetryAfter, 86400}, {"delayMs", &m.DelayMs, 600_000}} {
		v := q.Get(f.name)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > f.max {
			http.Error(w, f.name+": want an integer 0-"+strconv.Itoa(f.max), http.StatusBadRequest)
			return
		}
		*f.dst = n
	}
	if m.Status < 200 {
		http.Error(w, "status: want 200-599", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.mode = m
	s.mu.Unlock()
	writeJSON(w, m)
}

// Counts is what /__admin/counts answers.
type Counts struct {
	Total int            `json:"total"`
	Paths map[string]int `json:"paths"`
	// APIPerSecond is [Unix second, requests] for each of the last 120
	// seconds in which requests under /api/ reached the gateway (whatever
	// the prefix asked for), oldest first: the demo page charts it.
	APIPerSecond [][2]int64 `json:"apiPerSecond"`
}

func (s *Server) snapshot() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := Counts{Paths: make(map[string]int, len(s.counts)), APIPerSecond: s.apiRate.last(s.now().Unix())}
	for p, n := range s.counts {
		c.Paths[p] = n
		c.Total += n
	}
	return c
}

func (s *Server) getCounts(w http.ResponseWriter, r *http.Request) {
	c := s.snapshot()
	if prefix := r.URL.Query().Get("prefix"); prefix != "" {
		c.Total = 0
		for p, n := range c.Paths {
			if !strings.HasPrefix(p, prefix) {
				delete(c.Paths, p)
				continue
			}
			c.Total += n
		}
	}
	writeJSON(w, c)
}

// reset zeroes the counts and their history; the mode is left as it is.
func (s *Server) reset(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.counts = map[string]int{}
	s.apiRate = rate{}
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(v)
}

func or(v, fallback string) string {
	if v == "" {
		return fallback
	}
	return v
}
