//go:build js && wasm

// Command worker is the edge gateway's Go side, run by edge/js/worker.mjs in
// Cloudflare Workers (or workerd). One Go instance serves the whole isolate:
// the front worker asks it where a request goes (route), and each Durable
// Object opens its engine over its own SQLite database (openCache,
// openLedger, openJobs). Everything Go exposes is on globalThis.gatewayEdge;
// its shape is documented in worker.mjs, the only caller.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	goruntime "runtime"
	"strconv"
	"sync"
	"time"

	"github.com/gatewaycircuit/gatewaycircuit/edge/cache"
	"github.com/gatewaycircuit/gatewaycircuit/edge/config"
	"github.com/gatewaycircuit/gatewaycircuit/edge/lease"
	"github.com/gatewaycircuit/gatewaycircuit/edge/ledger"
	"github.com/gatewaycircuit/gatewaycircuit/edge/origin"
	"github.com/hack-pad/safejs"
)

// The isolate's state, set once by configure.
var (
	cfg    *config.Config
	client jsClient
	sqlFn  safejs.Value
)

// clock is the edge's time: Unix ms that never go back, plus the offset a
// test may set (only with testClock).
var clock struct {
	mu     sync.Mutex
	last   int64
	offset int64
}

func now() int64 {
	clock.mu.Lock()
	defer clock.mu.Unlock()
	clock.last = max(clock.last, time.Now().UnixMilli()+clock.offset)
	return clock.last
}

func main() {
	api, _ := objectClass.New()
	export(api, "configure", configure)
	export(api, "route", route)
	export(api, "now", func([]safejs.Value) (any, error) { return float64(now()), nil })
	export(api, "setClockOffset", setClockOffset)
	export(api, "openCache", openCache)
	export(api, "openLedger", openLedger)
	export(api, "openJobs", openJobs)
	export(api, "runtime", runtimeStats)
	export(api, "forwarded", forwarded)
	export(api, "location", func(args []safejs.Value) (any, error) {
		return config.Location(str(arg(args, 0)), str(arg(args, 1)), str(arg(args, 2))), nil
	})
	_ = safejs.Global().Set("gatewayEdge", api)
	select {}
}

// export sets o[name] to a function whose Go error becomes a thrown Error.
// These functions live as long as the isolate; they are never released.
func export(o safejs.Value, name string, fn func(args []safejs.Value) (any, error)) {
	errorClass := safejs.MustGetGlobal("Error")
	f, _ := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		v, err := recovered(func() (any, error) { return fn(args) })
		if err != nil {
			e, _ := errorClass.New(err.Error())
			return map[string]any{"error": safejs.Unsafe(e)}
		}
		return v
	})
	_ = o.Set(name, f.Value())
}

// configure(configJSON, fetchHelper, sqlHelper) → {ok: true}
func configure(args []safejs.Value) (any, error) {
	c, err := config.Parse(str(arg(args, 0)))
	if err != nil {
		return nil, err
	}
	cfg = c
	client = jsClient{fetch: arg(args, 1), timeoutMs: c.UpstreamTimeoutMs}
	sqlFn = arg(args, 2)
	return map[string]any{"ok": true}, nil
}

func configured() error {
	if cfg == nil {
		return errors.New("edge: configure was not called")
	}
	return nil
}

// route(method, path, authorization, idempotencyKey) → config.Route as an object
func route(args []safejs.Value) (any, error) {
	if err := configured(); err != nil {
		return nil, err
	}
	r := cfg.Route(str(arg(args, 0)), str(arg(args, 1)), str(arg(args, 2)), str(arg(args, 3)))
	return map[string]any{"kind": string(r.Kind), "service": r.Service, "principal": r.Principal,
		"key": r.Key, "upstream": r.Upstream, "status": r.Status, "code": r.Code, "maxBodyBytes": float64(r.MaxBodyBytes)}, nil
}

// forwarded(headers, principal, toService) → [[name, value]...]: the header
// of a request forwarded as it is (config.Forwarded).
func forwarded(args []safejs.Value) (any, error) {
	if err := configured(); err != nil {
		return nil, err
	}
	toService, _ := arg(args, 2).Bool()
	return headerToJS(cfg.Forwarded(headerFromJS(arg(args, 0)), str(arg(args, 1)), toService)), nil
}

// setClockOffset(ms): moves the clock (testClock only; it never goes back).
func setClockOffset(args []safejs.Value) (any, error) {
	if err := configured(); err != nil {
		return nil, err
	}
	if !cfg.TestClock {
		return nil, errors.New("edge: the clock can only be moved with testClock")
	}
	ms, err := arg(args, 0).Float()
	if err != nil {
		return nil, err
	}
	clock.mu.Lock()
	clock.offset = int64(ms)
	clock.mu.Unlock()
	return float64(now()), nil
}

// runtime() → {heapAlloc, heapSys, sys, numGC}: the Go side's memory, for
// the admin endpoint and the benchmark.
func runtimeStats([]safejs.Value) (any, error) {
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return map[string]any{"heapAlloc": float64(m.HeapAlloc), "heapSys": float64(m.HeapSys), "sys": float64(m.Sys), "numGC": float64(m.NumGC)}, nil
}

// openCache(sql, serviceName) → {get(key, accept), metrics(), keys()}
func openCache(args []safejs.Value) (any, error) {
	if err := configured(); err != nil {
		return nil, err
	}
	svc, ok := cfg.Service(serviceByName(str(arg(args, 1))))
	if !ok {
		return nil, errors.New("edge: no service " + str(arg(args, 1)))
	}
	header := origin.Header{}
	for k, v := range cfg.UpstreamHeaders {
		header = header.Set(k, v)
	}
	s, err := cache.Open(svc.Cache, cache.Options{Name: svc.Name, Upstream: svc.Upstream, Header: header,
		DB: jsDB{sql: arg(args, 0), exec: sqlFn}, Client: client, Now: now})
	if err != nil {
		return nil, err
	}
	o, _ := objectClass.New()
	// get answers synchronously when it can (a hit, a stand-in, a 503)
	// and with a Promise when the upstream is needed.
	export(o, "get", func(args []safejs.Value) (any, error) {
		key, accept := str(arg(args, 0)), str(arg(args, 1))
		if res, ok := s.Lookup(key, accept); ok {
			return responseToJS(res)
		}
		return promise(func() (any, error) { return responseToJS(s.Get(context.Background(), key, accept)) })
	})
	export(o, "metrics", func([]safejs.Value) (any, error) {
		b, err := json.Marshal(map[string]any{"service": svc.Name, "counters": s.Stats.Snapshot(), "keys": s.Len()})
		return string(b), err
	})
	export(o, "keys", func([]safejs.Value) (any, error) {
		b, err := json.Marshal(s.Keys())
		return string(b), err
	})
	return o, nil
}

// serviceByName returns the prefix of the service called name, so that
// cfg.Service finds it.
func serviceByName(name string) string {
	for _, s := range cfg.Services {
		if s.Name == name {
			return s.Prefix
		}
	}
	return "\x00"
}

// openLedger(sql) → {do(operation, key, method, url, headers, body, principal), metrics()}
func openLedger(args []safejs.Value) (any, error) {
	if err := configured(); err != nil {
		return nil, err
	}
	l, err := ledger.Open(cfg.Ledger, jsDB{sql: arg(args, 0), exec: sqlFn}, client, now)
	if err != nil {
		return nil, err
	}
	o, _ := objectClass.New()
	export(o, "do", func(args []safejs.Value) (any, error) {
		op, key := str(arg(args, 0)), str(arg(args, 1))
		req := origin.Request{Method: str(arg(args, 2)), URL: str(arg(args, 3)),
			Header: cfg.Forwarded(headerFromJS(arg(args, 4)), str(arg(args, 6)), true), Body: bytesFromJS(arg(args, 5))}
		return promise(func() (any, error) { return responseToJS(l.Do(context.Background(), op, key, req)) })
	})
	export(o, "metrics", func([]safejs.Value) (any, error) {
		b, err := json.Marshal(map[string]any{"counters": l.Stats.Snapshot(), "records": l.Len()})
		return string(b), err
	})
	return o, nil
}

// openJobs(sql) → {run(jobName) → Promise<lease.Outcome as JSON>, holder(jobName)}
func openJobs(args []safejs.Value) (any, error) {
	if err := configured(); err != nil {
		return nil, err
	}
	t, err := lease.Open(jsDB{sql: arg(args, 0), exec: sqlFn})
	if err != nil {
		return nil, err
	}
	o, _ := objectClass.New()
	export(o, "run", func(args []safejs.Value) (any, error) {
		job, ok := cfg.Job(str(arg(args, 0)))
		if !ok {
			return nil, errors.New("edge: no job " + str(arg(args, 0)))
		}
		return promise(func() (any, error) {
			var id [8]byte
			_, _ = rand.Read(id[:])
			owner := hex.EncodeToString(id[:])
			out, err := t.Run(job.Name, owner, now, job.LeaseMs, job.Steps, func(i int) error {
				res, err := client.Fetch(context.Background(), origin.Request{Method: "POST", URL: cfg.Upstream + job.Path})
				if err == nil && res.Status >= 400 {
					err = errors.New("upstream answered " + strconv.Itoa(res.Status))
				}
				return err
			})
			if err != nil {
				return nil, err
			}
			b, err := json.Marshal(out)
			return string(b), err
		})
	})
	return o, nil
}
