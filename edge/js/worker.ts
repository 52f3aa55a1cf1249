// The edge gateway's JS side: the front worker and the Durable Object
// classes. Each class is a thin wrapper whose logic is Go (edge/worker,
// compiled to edge.wasm); this file owns only what must be JS: loading the
// Go instance once per isolate, the Workers fetch, the SQLite bindings and
// building Response objects. The front worker routes each request once (Go's
// route) and calls the object it names by RPC, with what the route found:
// the objects never see the client's request. edge.d.ts types the Go side.
import "./wasm_exec.js";
import wasm from "./edge.wasm";
import { DurableObject } from "cloudflare:workers";
import type { Answer, CacheApi, Failed, GatewayEdge, JobsApi, LedgerApi, Route, SqlValue, UpstreamFetch } from "./edge.js";

/** The worker's bindings (edge/workerd.capnp.tmpl, edge/wrangler.example.jsonc). */
export interface Env {
  /** The edge's configuration, JSON (docs/edge.md). */
  EDGE_CONFIG?: string;
  EDGE_CACHE: DurableObjectNamespace<EdgeCache>;
  EDGE_LEDGER: DurableObjectNamespace<EdgeLedger>;
  EDGE_JOBS: DurableObjectNamespace<EdgeJobs>;
}

/** A mutation with an Idempotency-Key, as the front worker hands it to its principal's ledger. */
export interface Mutation {
  method: string;
  /** The path, as the ledger scopes a key by it (with the method). */
  path: string;
  /** The URL the mutation goes to upstream. */
  url: string;
  key: string;
  principal: string;
  headers: [string, string][];
  body: Uint8Array;
}

/** What a job's run answers: lease.Outcome. */
export interface JobOutcome {
  /** This trigger held the lease and ran the job. */
  ran: boolean;
  /** Steps completed. */
  steps: number;
  /** Who holds the lease, when this trigger did not run. */
  holder?: string;
  /** The lease was lost mid-run (a renewal failed). */
  lost?: boolean;
  /** The failed step's error. */
  failure?: string;
}

let edge: GatewayEdge | undefined; // the Go side, once started
let starting: Promise<GatewayEdge> | undefined;
let goInstance: Go | undefined; // for the runtime figures: live JS values held for Go

// start runs the Go instance on the first request of the isolate (Workers
// allow no I/O or timers at global scope) and configures it.
function start(env: Env): Promise<GatewayEdge> {
  starting ??= (async () => {
    const go = (goInstance = new Go());
    const instance = await WebAssembly.instantiate(wasm, go.importObject);
    void go.run(instance); // returns at once: main blocks in select{}
    const api = globalThis.gatewayEdge;
    const r = api.configure(env.EDGE_CONFIG ?? "", upstreamFetch, sqlExec);
    if ("error" in r) throw r.error;
    edge = api;
    return api;
  })();
  return starting;
}

function ok<T extends object>(v: T | Failed): T {
  if ("error" in v) throw v.error;
  return v;
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
const upstreamFetch: UpstreamFetch = async (url, method, headers, body, timeoutMs, maxBytes) => {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs);
  try {
    const res = await fetch(url, { method, headers, body: body ?? undefined, redirect: "manual", signal: abort.signal });
    const head = { status: res.status, headers: [...res.headers] };
    if (!maxBytes || !res.body) return { ...head, body: new Uint8Array(await res.arrayBuffer()) };
    if (Number(res.headers.get("content-length")) > maxBytes) return hold(head, res.body);
    const reader = res.body.getReader();
    const { chunks, n, over } = await readUpTo(reader, maxBytes);
    return over ? hold(head, replay(chunks, reader)) : { ...head, body: concat(chunks, n) };
  } finally {
    clearTimeout(timer); // a held body streams at its reader's pace
  }
};

// readUpTo reads until the stream ends or more than max bytes have come
// (over: the rest is left unread, for the caller to stream or cancel).
async function readUpTo(reader: ReadableStreamDefaultReader<Uint8Array>, max: number) {
  const chunks: Uint8Array[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { chunks, n, over: false };
    chunks.push(value);
    n += value.byteLength;
    if (n > max) return { chunks, n, over: true };
  }
}

function concat(chunks: Uint8Array[], n: number): Uint8Array {
  const all = new Uint8Array(n);
  chunks.reduce((at, c) => (all.set(c, at), at + c.byteLength), 0);
  return all;
}

// bodyUpTo reads a request's body if it is at most max bytes, told by its
// Content-Length before anything is read, or counted while reading (an
// isolate has 128 MB); undefined when it is larger, the rest never read.
async function bodyUpTo(request: Request, max: number): Promise<Uint8Array | undefined> {
  if (Number(request.headers.get("content-length")) > max) return undefined;
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const { chunks, n, over } = await readUpTo(reader, max);
  if (!over) return concat(chunks, n);
  reader.cancel().catch(() => {});
  return undefined;
}

// Bodies too large to read, by id, until their caller takes them (takeHeld).
const held = new Map<number, ReadableStream<Uint8Array>>();
let heldSeq = 0;

function hold(head: Pick<Answer, "status" | "headers">, stream: ReadableStream<Uint8Array>): Answer {
  if (head.status < 200 || head.status > 299) {
    stream.cancel().catch(() => {});
    return { ...head, body: new Uint8Array(0) };
  }
  held.set(++heldSeq, stream);
  return { ...head, body: new Uint8Array(0), held: heldSeq };
}

// replay is a stream of the chunks already read, then the rest of reader.
function replay(chunks: Uint8Array[], reader: ReadableStreamDefaultReader<Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
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

function takeHeld(id: number): ReadableStream<Uint8Array> | undefined {
  const stream = held.get(id);
  held.delete(id);
  return stream;
}

// sqlExec runs one statement; blobs cross as Uint8Array both ways.
function sqlExec(sql: SqlStorage, query: string, args: SqlValue[]): SqlValue[][] {
  const rows: SqlValue[][] = [];
  const bound = args.map((a) => (a instanceof Uint8Array ? (a.buffer as ArrayBuffer) : a));
  for (const row of sql.exec(query, ...bound).raw()) {
    rows.push(row.map((c) => (c instanceof ArrayBuffer ? new Uint8Array(c) : (c as SqlValue))));
  }
  return rows;
}

const nullBody = new Set([101, 204, 205, 304]);

/**
 * An answer as an object hands it back over RPC: plain values, which cross as
 * a structured clone (cheaper than a Response, whose body would cross as a
 * stream); only a body too large to read crosses as its ReadableStream.
 */
export interface Reply {
  status: number;
  /** [name, value] pairs (RPC's types see a tuple as an array). */
  headers: string[][];
  body: Uint8Array | ReadableStream<Uint8Array> | null;
}

function toReply(a: Answer | Failed): Reply {
  const { status, headers, body, held } = ok(a);
  return { status, headers, body: nullBody.has(status) ? null : held ? (takeHeld(held) ?? null) : body };
}

function toResponse({ status, headers, body }: Reply): Response {
  return new Response(body, { status, headers: headers as [string, string][] });
}

function json(status: number, value: unknown): Response {
  return new Response(typeof value === "string" ? value : JSON.stringify(value), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });
}

function stub<T extends Rpc.DurableObjectBranded | undefined>(ns: DurableObjectNamespace<T>, name: string): DurableObjectStub<T> {
  return ns.get(ns.idFromName(name));
}

export default {
  async fetch(request, env) {
    const api = edge ?? (await start(env));
    const url = new URL(request.url);
    const h = request.headers;
    const r = api.route(request.method, url.pathname, h.get("authorization") ?? "", h.get("idempotency-key") ?? "");
    switch (r.kind) {
      case "cache":
        return onEdge(api, toResponse(await stub(env.EDGE_CACHE, r.service).get(r.service, url.pathname + url.search, h.get("accept") ?? "")), r, url);
      case "ledger": {
        const body = await bodyUpTo(request, r.maxBodyBytes);
        if (!body) return json(413, { error: "body_too_large", message: `a keyed request's body is at most ${r.maxBodyBytes} bytes` });
        return onEdge(api, toResponse(await stub(env.EDGE_LEDGER, r.principal).mutate({
          method: request.method,
          path: url.pathname,
          url: upstreamURL(r, url),
          key: r.key,
          principal: r.principal,
          headers: [...h],
          body,
        })), r, url);
      }
      case "pass": // a keyless mutation, or a path outside every service (passUnmatched): as it is
        return onEdge(api, await passThrough(api, request, url, r), r, url);
      case "admin":
        return admin(api, env, request, url);
      default:
        return json(r.status, { error: r.code });
    }
  },
} satisfies ExportedHandler<Env>;

function upstreamURL(r: Route, url: URL): string {
  return r.upstream.replace(/\/$/, "") + url.pathname + url.search;
}

// onEdge: an absolute Location on the upstream's own base URL names the
// same path on the edge's origin (Go's config.Location), as nginx's
// proxy_redirect default does; any other Location is left as it came.
function onEdge(api: GatewayEdge, res: Response, r: Route, url: URL): Response {
  const location = res.headers.get("location");
  if (!location) return res;
  const out = new Response(res.body, res);
  out.headers.set("location", api.location(location, r.upstream, url.origin));
  return out;
}

// passThrough forwards a keyless mutation, or a path outside every service,
// with the headers Go decides (the same as a keyed mutation's). Its body
// streams through: nothing records it, so nothing needs it whole.
function passThrough(api: GatewayEdge, request: Request, url: URL, r: Route): Promise<Response> {
  const headers = api.forwarded([...request.headers], r.principal, r.service !== "");
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  return fetch(upstreamURL(r, url), {
    method: request.method,
    headers,
    body: hasBody ? request.body : undefined,
    redirect: "manual",
  });
}

// admin: /__edge/metrics?service=NAME | ?principal=NAME, /__edge/keys?service=NAME,
// /__edge/runtime (the Go instance's memory),
// POST /__edge/jobs/NAME, POST /__edge/clock?offsetMs=N (testClock only).
async function admin(api: GatewayEdge, env: Env, request: Request, url: URL): Promise<Response> {
  const p = url.pathname;
  const q = url.searchParams;
  if (p === "/__edge/clock" && request.method === "POST") {
    const r = api.setClockOffset(Number(q.get("offsetMs") ?? 0));
    return typeof r === "number" ? json(200, { now: r }) : json(403, { error: String(r.error.message) });
  }
  const service = q.get("service");
  const principal = q.get("principal");
  if (p === "/__edge/metrics" || p === "/__edge/keys") {
    if (service !== null) {
      const c = stub(env.EDGE_CACHE, service);
      return json(200, await (p === "/__edge/keys" ? c.keys(service) : c.metrics(service)));
    }
    if (principal !== null) return json(200, await stub(env.EDGE_LEDGER, principal).metrics());
  }
  if (p === "/__edge/runtime" && goInstance) {
    const wasmBytes = goInstance._inst.exports.mem.buffer.byteLength;
    const liveRefs = goInstance._values.length - goInstance._idPool.length;
    return json(200, { ...api.runtime(), wasmBytes, liveRefs });
  }
  if (p.startsWith("/__edge/jobs/") && request.method === "POST") {
    const out = await stub(env.EDGE_JOBS, p.slice("/__edge/jobs/".length)).run(p.slice("/__edge/jobs/".length));
    return json(out.ran ? 200 : 409, out);
  }
  return json(404, { error: "no_admin_route" });
}

// EdgeCache: one per service; the GET cache (edge/cache). Its RPC methods
// take the service's name: the front worker routed the request.
export class EdgeCache extends DurableObject<Env> {
  private cache?: CacheApi;

  /** The answer to a GET of key (path and query) with this Accept: a hit answers without a Promise on the Go side. */
  get(service: string, key: string, accept: string): Reply | Promise<Reply> {
    if (!edge) return start(this.env).then(() => this.get(service, key, accept));
    const a = this.open(edge, service).get(key, accept);
    return a instanceof Promise ? a.then(toReply) : toReply(a);
  }

  /** The counters and the number of copies, JSON. */
  async metrics(service: string): Promise<string> {
    return this.open(edge ?? (await start(this.env)), service).metrics();
  }

  /** The copies held, JSON. */
  async keys(service: string): Promise<string> {
    return this.open(edge ?? (await start(this.env)), service).keys();
  }

  // The object serves one service: the first call opens it.
  private open(api: GatewayEdge, service: string): CacheApi {
    this.cache ??= ok(api.openCache(this.ctx.storage.sql, service));
    return this.cache;
  }
}

// EdgeLedger: one per principal; the idempotency ledger (edge/ledger).
export class EdgeLedger extends DurableObject<Env> {
  private ledger?: LedgerApi;

  /** A keyed mutation: forwarded once, its answer recorded and replayed (docs/edge.md). */
  async mutate(m: Mutation): Promise<Reply> {
    const l = await this.open();
    return toReply(await l.do(m.method + " " + m.path, m.key, m.method, m.url, m.headers, m.body, m.principal));
  }

  /** The counters and the number of records, JSON. */
  async metrics(): Promise<string> {
    return (await this.open()).metrics();
  }

  private async open(): Promise<LedgerApi> {
    const api = edge ?? (await start(this.env));
    this.ledger ??= ok(api.openLedger(this.ctx.storage.sql));
    return this.ledger;
  }
}

// EdgeJobs: one per job; runs it under its lease (edge/lease).
export class EdgeJobs extends DurableObject<Env> {
  private jobs?: JobsApi;

  /** Runs the job under its lease; ran is false when another run holds it. */
  async run(name: string): Promise<JobOutcome> {
    const api = edge ?? (await start(this.env));
    this.jobs ??= ok(api.openJobs(this.ctx.storage.sql));
    const out = this.jobs.run(name);
    if (!(out instanceof Promise)) throw out.error;
    return JSON.parse(await out) as JobOutcome;
  }
}
