// What the JS side of the edge sees of the Go side (edge/worker, compiled to
// edge.wasm) and of the Go runtime's wasm_exec.js.

/** An upstream answer as Go hands it over; held names a body too large to read, streamed by its caller. */
export interface Answer {
  status: number;
  headers: [string, string][];
  body: Uint8Array;
  held?: number;
}

/** What a Go call answers when it fails: the Error it would throw. */
export interface Failed {
  error: Error;
}

export interface Route {
  kind: "cache" | "ledger" | "pass" | "admin" | "refuse";
  service: string;
  principal: string;
  key: string;
  upstream: string;
  status: number;
  code: string;
  /** The largest request body a ledger route reads; a larger one is refused with 413 unread. */
  maxBodyBytes: number;
}

export type UpstreamFetch = (
  url: string,
  method: string,
  headers: [string, string][],
  body: Uint8Array | null,
  timeoutMs: number,
  maxBytes: number,
) => Promise<Answer>;

export type SqlValue = string | number | null | Uint8Array;
export type SqlExec = (sql: SqlStorage, query: string, args: SqlValue[]) => SqlValue[][];

/** A service's cache, in its EdgeCache object: a hit answers synchronously, a fetch with a Promise. */
export interface CacheApi {
  get(key: string, accept: string): Answer | Failed | Promise<Answer | Failed>;
  metrics(): string;
  keys(): string;
}

/** A principal's idempotency ledger, in its EdgeLedger object. */
export interface LedgerApi {
  do(
    operation: string,
    key: string,
    method: string,
    url: string,
    headers: [string, string][],
    body: Uint8Array,
    principal: string,
  ): Promise<Answer | Failed>;
  metrics(): string;
}

/** The jobs' leases, in an EdgeJobs object: run answers lease.Outcome as JSON. */
export interface JobsApi {
  run(job: string): Promise<string> | Failed;
}

/** globalThis.gatewayEdge, set by Go's main. */
export interface GatewayEdge {
  configure(configJSON: string, upstreamFetch: UpstreamFetch, sqlExec: SqlExec): { ok: true } | Failed;
  route(method: string, path: string, authorization: string, idempotencyKey: string): Route;
  /** The edge's clock, Unix ms. */
  now(): number;
  /** testClock only. */
  setClockOffset(ms: number): number | Failed;
  runtime(): { heapAlloc: number; heapSys: number; sys: number; numGC: number };
  /** The header of a request forwarded as it is (config.Forwarded). */
  forwarded(headers: [string, string][], principal: string, toService: boolean): [string, string][];
  /** An answer's Location as the edge's caller reads it (config.Location): on the upstream's base URL, on the edge's origin. */
  location(location: string, upstream: string, edgeOrigin: string): string;
  openCache(sql: SqlStorage, service: string): CacheApi | Failed;
  openLedger(sql: SqlStorage): LedgerApi | Failed;
  openJobs(sql: SqlStorage): JobsApi | Failed;
}

declare global {
  // wasm_exec.js: the Go runtime's JS half (its internals are read for the runtime figures).
  class Go {
    importObject: WebAssembly.Imports;
    run(instance: WebAssembly.Instance): Promise<void>;
    _inst: WebAssembly.Instance & { exports: { mem: WebAssembly.Memory } };
    _values: unknown[];
    _idPool: unknown[];
  }
  // eslint-disable-next-line no-var
  var gatewayEdge: GatewayEdge;
}
