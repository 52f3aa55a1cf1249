package main

// Fault modes for the reliability tests (e2e/faults.test.mjs, e2e/soak.mjs),
// all under /fault/. They keep their own counts and arrival log, so the
// foundation's /api/ counts are untouched.
//
//	GET  /fault/page?wasm=&scope=&ttl=     a bare page with the module and a problem log
//	GET  /fault/sandbox?...                the same page in <iframe sandbox="allow-scripts">
//	GET  /fault/dist/{file}                dist/ with CORS (the sandboxed frame's origin is opaque)
//	GET  /fault/wasm/faultinject.wasm      build/faults/: the wasm built with -tags faultinject
//	ANY  /fault/api/ok                     200 with a JSON body
//	ANY  /fault/api/status/{code}          that status (?retryAfter=s)
//	ANY  /fault/api/nobody                 204
//	ANY  /fault/api/hang                   never answers; ends when the client goes away
//	ANY  /fault/api/reset                  hijacks the connection and closes it (no response)
//	ANY  /fault/api/cut                    headers and half the promised body, then closes
//	ANY  /fault/api/echo                   reads the whole request body, answers its length
//	ANY  /fault/api/slow/{ms}              200 after ms (at most 10 s)
//	ANY  /fault/soak/{mode}/{id}           the soak: ok, 502, 503, 504, 429 (Retry-After: 1),
//	                                       slow (20-150 ms, from id); arrivals logged with times
//	GET  /fault/counts?prefix=             requests that reached /fault/api/ and /fault/soak/
//	GET  /fault/arrivals                   [{id, t}] of /fault/soak/ arrivals (t: Unix ms)
//	POST /fault/reset                      zeroes counts and arrivals

import (
	"html/template"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

type faults struct {
	mu       sync.Mutex     // guards counts and arrivals
	counts   map[string]int // per path
	arrivals []arrival      // /fault/soak/ only, in order of arrival
}

type arrival struct {
	ID string `json:"id"`
	T  int64  `json:"t"` // Unix ms when the handler started
}

// mountFaults adds the /fault/ routes to mux (one line in NewServer).
func mountFaults(mux *http.ServeMux, d Dirs) {
	f := &faults{counts: map[string]int{}}
	mux.HandleFunc("GET /fault/page", func(w http.ResponseWriter, r *http.Request) { f.page(w, r, false) })
	mux.HandleFunc("GET /fault/sandbox", func(w http.ResponseWriter, r *http.Request) { f.page(w, r, true) })
	mux.Handle("GET /fault/dist/{file}", cors(servePacked(d.Dist, distNames, http.NotFoundHandler())))
	faultWasm := filepath.Join(d.App, "..", "faults", "gateway-circuit.wasm")
	mux.HandleFunc("GET /fault/wasm/faultinject.wasm", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/wasm")
		w.Header().Set("Cache-Control", "no-store")
		http.ServeFile(w, r, faultWasm)
	})
	mux.Handle("/fault/api/", cors(http.HandlerFunc(f.api)))
	mux.Handle("/fault/soak/", cors(http.HandlerFunc(f.soak)))
	mux.HandleFunc("GET /fault/counts", f.getCounts)
	mux.HandleFunc("GET /fault/arrivals", f.getArrivals)
	mux.HandleFunc("POST /fault/reset", f.reset)
}

// cors lets the sandboxed frame (origin "null") read what it fetches.
func cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", "Retry-After")
		if r.Method == http.MethodOptions {
			h.Set("Access-Control-Allow-Methods", "GET, HEAD, POST, PUT, DELETE")
			h.Set("Access-Control-Allow-Headers", "*")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

var faultPage = template.Must(template.New("page").Parse(`<!doctype html>
<meta charset="utf-8">
<title>fault</title>
<script>
  // What must never happen, recorded where a test can read it.
  window.__problems = [];
  addEventListener("unhandledrejection", (e) => __problems.push("unhandledrejection: " + (e.reason && e.reason.message || e.reason)));
  addEventListener("error", (e) => __problems.push("error: " + e.message));
</script>
<script src="{{.Base}}/gateway-circuit.js" data-wasm="{{.Wasm}}" data-scope="{{.Scope}}"{{if .TTL}} data-ttl-ms="{{.TTL}}"{{end}}{{if .TripWindow}} data-trip-window-ms="{{.TripWindow}}"{{end}}{{if .TripBurst}} data-trip-burst-ms="{{.TripBurst}}"{{end}}></script>
<p id="alive">alive</p>
`))

var sandboxPage = template.Must(template.New("sandbox").Parse(`<!doctype html>
<meta charset="utf-8">
<title>fault: sandboxed frame</title>
<iframe id="frame" sandbox="allow-scripts" srcdoc="{{.}}"></iframe>
`))

type faultParams struct{ Base, Wasm, Scope, TTL, TripWindow, TripBurst string }

func (f *faults) page(w http.ResponseWriter, r *http.Request, sandboxed bool) {
	q := r.URL.Query()
	p := faultParams{Wasm: or(q.Get("wasm"), "/gateway-circuit.wasm"), Scope: or(q.Get("scope"), "/fault/"), TTL: q.Get("ttl"), TripWindow: q.Get("tripWindow"), TripBurst: q.Get("tripBurst")}
	if sandboxed {
		// The frame's origin is opaque: the module and its wasm come from
		// /fault/dist/, which sends CORS headers; so do the /fault/ APIs.
		p.Base = "/fault/dist"
		p.Wasm = or(q.Get("wasm"), "/fault/dist/gateway-circuit.wasm")
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if !sandboxed {
		_ = faultPage.Execute(w, p)
		return
	}
	var inner strings.Builder
	_ = faultPage.Execute(&inner, p)
	_ = sandboxPage.Execute(w, inner.String())
}

func (f *faults) count(path string) {
	f.mu.Lock()
	f.counts[path]++
	f.mu.Unlock()
}

func (f *faults) api(w http.ResponseWriter, r *http.Request) {
	f.count(r.URL.Path)
	rest := strings.TrimPrefix(r.URL.Path, "/fault/api/")
	kind, arg, _ := strings.Cut(rest, "/")
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	switch kind {
	case "ok":
		answer(w, http.StatusOK, 0)
	case "status":
		code, err := strconv.Atoi(arg)
		if err != nil || code < 200 || code > 599 {
			http.Error(w, "status: want 200-599", http.StatusBadRequest)
			return
		}
		ra, _ := strconv.Atoi(r.URL.Query().Get("retryAfter"))
		answer(w, code, ra)
	case "nobody":
		w.WriteHeader(http.StatusNoContent)
	case "hang":
		<-r.Context().Done()
	case "reset":
		hijackClose(w)
	case "cut":
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", "100")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"cut":`)
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		hijackClose(w)
	case "echo":
		n, err := io.Copy(io.Discard, r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h.Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"bytes":`+strconv.FormatInt(n, 10)+"}\n")
	case "slow":
		ms, _ := strconv.Atoi(arg)
		if !sleepCtx(r, time.Duration(min(max(ms, 0), 10_000))*time.Millisecond) {
			return
		}
		answer(w, http.StatusOK, 0)
	default:
		http.NotFound(w, r)
	}
}

// soak answers /fault/soak/{mode}/{id}. The runner picks the mode of each
// request from a seeded PRNG, so a run is reproducible from its seed; the
// arrival log is what the invariants are checked against.
func (f *faults) soak(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, "/fault/soak/")
	mode, id, _ := strings.Cut(rest, "/")
	f.mu.Lock()
	f.counts[r.URL.Path]++
	f.arrivals = append(f.arrivals, arrival{ID: id, T: time.Now().UnixMilli()})
	f.mu.Unlock()
	w.Header().Set("Cache-Control", "no-store")
	switch mode {
	case "ok":
		answer(w, http.StatusOK, 0)
	case "502", "503", "504":
		code, _ := strconv.Atoi(mode)
		answer(w, code, 0)
	case "429":
		answer(w, http.StatusTooManyRequests, 1)
	case "slow":
		// 20-150 ms, a function of the id (FNV-1a), so it is reproducible too.
		h := uint32(2166136261)
		for i := 0; i < len(id); i++ {
			h = (h ^ uint32(id[i])) * 16777619
		}
		if !sleepCtx(r, time.Duration(20+h%131)*time.Millisecond) {
			return
		}
		answer(w, http.StatusOK, 0)
	default:
		http.NotFound(w, r)
	}
}

func answer(w http.ResponseWriter, status, retryAfter int) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(retryAfter))
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, `{"status":`+strconv.Itoa(status)+"}\n")
}

// hijackClose drops the connection without a (complete) response: the
// browser sees a reset, as from a crashing proxy.
func hijackClose(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	_ = buf.Flush()
	_ = conn.Close()
}

func sleepCtx(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

func (f *faults) getCounts(w http.ResponseWriter, r *http.Request) {
	prefix := r.URL.Query().Get("prefix")
	c := Counts{Paths: map[string]int{}}
	f.mu.Lock()
	for p, n := range f.counts {
		if strings.HasPrefix(p, prefix) {
			c.Paths[p] = n
			c.Total += n
		}
	}
	f.mu.Unlock()
	writeJSON(w, c)
}

func (f *faults) getArrivals(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	a := append([]arrival(nil), f.arrivals...)
	f.mu.Unlock()
	writeJSON(w, a)
}

func (f *faults) reset(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.counts = map[string]int{}
	f.arrivals = nil
	f.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}
