// The edge gateway's JS side: the front worker and the Durable Object
// classes. Each class is a thin wrapper whose logic is Go (edge/worker,
// compiled to edge.wasm); this file owns only what must be JS: loading the
// Go instance once per isolate, the Workers fetch, the SQLite bindings and
// building Response objects.
//
// globalThis.gatewayEdge (set by Go's main):
//   configure(configJSON, upstreamFetch, sqlExec) -> {ok} | {error}
//   route(method, path, authorization, idempotencyKey) -> {kind, service, principal, key, upstream, status, code}
//   now() -> Unix ms (the edge's clock); setClockOffset(ms) (testClock only)
//   openCache(sql, service) -> {get(key, accept) -> answer | Promise<answer>, metrics() -> JSON, keys() -> JSON}
//   openLedger(sql) -> {do(operation, key, method, url, headers, body, principal) -> Promise<answer>, metrics() -> JSON}
//   forwarded(headers, principal, toService) -> the headers of a request forwarded as it is
//   openJobs(sql) -> {run(job) -> Promise<JSON>}
// An answer is {status, headers: [[name, value]...], body: Uint8Array, held?: id}.
import "./wasm_exec.js";
import wasm from "./edge.wasm";
import { DurableObject } from "cloudflare:workers";

let edge; // the Go side, once started
let starting;
let goInstance; // for the runtime figures: live JS values held for Go

// start runs the Go instance on the first request of the isolate (Workers
// allow no I/O or timers at global scope) and configures it.
function start(env) {
  if (edge) return edge;
  starting ??= (async () => {
    const go = (goInstance = new Go());
    const instance = await WebAssembly.instantiate(wasm, go.importObject);
    go.run(instance); // returns at once: main blocks in select{}
    const api = globalThis.gatewayEdge;
    const r = api.configure(env.EDGE_CONFIG ?? "", upstreamFetch, sqlExec);
    if (r.error) throw r.error;
    edge = api;
    return api;
  })();
  return starting;
}

// upstreamFetch is Go's only way out: one request, its answer read.
// A redirect is never followed (here or in passThrough): it is the caller's
// answer, and following it would carry the edge's own headers (its API key)
// to whatever origin the Location names.
//
// With maxBytes > 0, a body larger than that is never read into memory (Go's
// wasm memory never shrinks): a 2xx answer's body is held for the one caller
// Go hands it to, who streams it through (held: its id); another answer's
// body is dropped (an error page is not worth the memory). timeoutMs bounds
// the wait for the answer, and the reading of a body that is read whole.
async function upstreamFetch(url, method, headers, body, timeoutMs, maxBytes) {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs);
  try {
    const res = await fetch(url, { method, headers, body: body ?? undefined, redirect: "manual", signal: abort.signal });
    const head = { status: res.status, headers: [...res.headers] };
    if (!maxBytes || !res.body) return { ...head, body: new Uint8Array(await res.arrayBuffer()) };
    if (Number(res.headers.get("content-length")) > maxBytes) return hold(head, res.body);
    const reader = res.body.getReader();
    const chunks = [];
    let n = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      n += value.byteLength;
      if (n > maxBytes) return hold(head, replay(chunks, reader));
    }
    const all = new Uint8Array(n);
    chunks.reduce((at, c) => (all.set(c, at), at + c.byteLength), 0);
    return { ...head, body: all };
  } finally {
    clearTimeout(timer); // a held body streams at its reader's pace
  }
}

// Bodies too large to read, by id, until their caller takes them (takeHeld).
const held = new Map();
let heldSeq = 0;

function hold(head, stream) {
  if (head.status < 200 || head.status > 299) {
    stream.cancel().catch(() => {});
    return { ...head, body: new Uint8Array(0) };
  }
  held.set(++heldSeq, stream);
  return { ...head, body: new Uint8Array(0), held: heldSeq };
}

// replay is a stream of the chunks already read, then the rest of reader.
function replay(chunks, reader) {
  return new ReadableStream({
    start(c) {
      for (const x of chunks) c.enqueue(x);
    },
    async pull(c) {
      const { done, value } = await reader.read();
      if (done) c.close();
      else c.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

function takeHeld(id) {
  const stream = held.get(id);
  held.delete(id);
  return stream;
}

// sqlExec runs one statement; blobs cross as Uint8Array both ways.
function sqlExec(sql, query, args) {
  const rows = [];
  for (const row of sql.exec(query, ...args.map((a) => (a instanceof Uint8Array ? a.buffer : a))).raw()) {
    rows.push(row.map((c) => (c instanceof ArrayBuffer ? new Uint8Array(c) : c)));
  }
  return rows;
}

const nullBody = new Set([101, 204, 205, 304]);

function toResponse(a) {
  if (a.error) throw a.error;
  const body = a.held ? takeHeld(a.held) : a.body;
  return new Response(nullBody.has(a.status) ? null : body, { status: a.status, headers: a.headers });
}

function json(status, value) {
  return new Response(typeof value === "string" ? value : JSON.stringify(value), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });
}

const stub = (ns, name) => ns.get(ns.idFromName(name));

function routeOf(api, request, url) {
  const h = request.headers;
  return api.route(request.method, url.pathname, h.get("authorization") ?? "", h.get("idempotency-key") ?? "");
}

export default {
  async fetch(request, env) {
    const api = edge ?? (await start(env));
    const url = new URL(request.url);
    const r = routeOf(api, request, url);
    switch (r.kind) {
      case "cache":
        return stub(env.EDGE_CACHE, r.service).fetch(request);
      case "ledger":
        return stub(env.EDGE_LEDGER, r.principal).fetch(request);
      case "pass": // a keyless mutation, or a path outside every service (passUnmatched): as it is
        return passThrough(api, request, url, r);
      case "admin":
        return admin(api, env, request, url);
      default:
        return json(r.status, { error: r.code });
    }
  },
};

// passThrough forwards a keyless mutation, or a path outside every service,
// with the headers Go decides (the same as a keyed mutation's).
async function passThrough(api, request, url, r) {
  const headers = api.forwarded([...request.headers], r.principal, r.service !== "");
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  return fetch(r.upstream.replace(/\/$/, "") + url.pathname + url.search, {
    method: request.method,
    headers,
    body: hasBody ? await request.arrayBuffer() : undefined,
    redirect: "manual",
  });
}

// admin: /__edge/metrics?service=NAME | ?principal=NAME, /__edge/keys?service=NAME,
// /__edge/runtime (the Go instance's memory),
// POST /__edge/jobs/NAME, POST /__edge/clock?offsetMs=N (testClock only).
async function admin(api, env, request, url) {
  const p = url.pathname;
  const q = url.searchParams;
  if (p === "/__edge/clock" && request.method === "POST") {
    const r = api.setClockOffset(Number(q.get("offsetMs") ?? 0));
    return r.error ? json(403, { error: String(r.error.message) }) : json(200, { now: r });
  }
  if (p === "/__edge/metrics" || p === "/__edge/keys") {
    if (q.has("service")) return stub(env.EDGE_CACHE, q.get("service")).fetch(new Request(url, { headers: { "x-edge-service": q.get("service") } }));
    if (q.has("principal")) return stub(env.EDGE_LEDGER, q.get("principal")).fetch(new Request(url));
  }
  if (p === "/__edge/runtime") {
    const wasmBytes = goInstance._inst.exports.mem.buffer.byteLength;
    const liveRefs = goInstance._values.length - goInstance._idPool.length;
    return json(200, { ...api.runtime(), wasmBytes, liveRefs });
  }
  if (p.startsWith("/__edge/jobs/") && request.method === "POST") {
    return stub(env.EDGE_JOBS, p.slice("/__edge/jobs/".length)).fetch(new Request(url, { method: "POST" }));
  }
  return json(404, { error: "no_admin_route" });
}

// EdgeCache: one per service; the GET cache (edge/cache).
export class EdgeCache extends DurableObject {
  async fetch(request) {
    const api = edge ?? (await start(this.env));
    const url = new URL(request.url);
    if (url.pathname.startsWith("/__edge/")) {
      const c = this.open(api, request.headers.get("x-edge-service"));
      return json(200, url.pathname === "/__edge/keys" ? c.keys() : c.metrics());
    }
    // The service is routed once: this object serves only that one.
    const c = this.cache ?? this.open(api, routeOf(api, request, url).service);
    const a = c.get(url.pathname + url.search, request.headers.get("accept") ?? "");
    return toResponse(a instanceof Promise ? await a : a);
  }

  open(api, service) {
    if (!this.cache) {
      const c = api.openCache(this.ctx.storage.sql, service);
      if (c.error) throw c.error;
      this.cache = c;
    }
    return this.cache;
  }
}

// EdgeLedger: one per principal; the idempotency ledger (edge/ledger).
export class EdgeLedger extends DurableObject {
  async fetch(request) {
    const api = edge ?? (await start(this.env));
    if (!this.ledger) {
      const l = api.openLedger(this.ctx.storage.sql);
      if (l.error) throw l.error;
      this.ledger = l;
    }
    const url = new URL(request.url);
    if (url.pathname === "/__edge/metrics") return json(200, this.ledger.metrics());
    const r = routeOf(api, request, url);
    const upstream = r.upstream.replace(/\/$/, "");
    const headers = [...request.headers];
    const body = new Uint8Array(await request.arrayBuffer());
    const operation = request.method + " " + url.pathname;
    return toResponse(await this.ledger.do(operation, r.key, request.method, upstream + url.pathname + url.search, headers, body, r.principal));
  }
}

// EdgeJobs: one per job; runs it under its lease (edge/lease).
export class EdgeJobs extends DurableObject {
  async fetch(request) {
    const api = edge ?? (await start(this.env));
    if (!this.jobs) {
      const j = api.openJobs(this.ctx.storage.sql);
      if (j.error) throw j.error;
      this.jobs = j;
    }
    const name = new URL(request.url).pathname.slice("/__edge/jobs/".length);
    const out = JSON.parse(await this.jobs.run(name));
    return json(out.ran ? 200 : 409, out);
  }
}
