// The glue between JS and the Go core. JS owns every JS object (fetch, the
// Promise, the Response); Go owns the policy and the state and answers through
// numeric //go:wasmexport functions (wasm/main.go). Strings cross by being
// encoded into a buffer in Go's memory, multi-valued answers come back through
// a Float64Array over Go's `out`: nothing per request goes through syscall/js
// or js.FuncOf, which measured 25-285 µs per call against ~0.05 µs for an
// export (docs/performance.md).

import { newGo, runGo } from "./goruntime.js";

/** What to do with a request: guard.Kind in internal/guard. */
export const enum Kind {
  Pass = 0,
  Send = 1,
  Join = 2,
  Wait = 3,
  Open = 4,
  Cooling = 5,
  Negative = 6,
  Stale = 7,
  Cached = 8,
}

/** Flags; wasm/main.go defines them. */
export const RETRY = 1; // finish
export const WANT_BODY = 2; // finish
export const SERVE = 4; // finish
export const CHANGED = 16; // any call

/** The decision for one request (what gc_begin left in `out`). */
export interface Answer {
  kind: Kind;
  changed: boolean;
  ticket: number;
  flight: number;
  until: number;
  status: number;
  copyId: number;
  ageMs: number;
  storedAtMs: number;
  probe: number;
}

export interface Outcome {
  flags: number;
  waitMs: number;
  copyId: number;
  ageMs: number;
  storedAtMs: number;
}

interface Exports {
  mem: WebAssembly.Memory;
  gc_buf(): number;
  gc_buf_cap(): number;
  gc_out(): number;
  gc_quiet(): number;
  gc_adopt(len: number): number;
  gc_message_len(): number;
  gc_configure(now: number, len: number): number;
  gc_begin(now: number, len: number): number;
  gc_finish(now: number, ticket: number, status: number, len: number): number;
  gc_observe(now: number, status: number, len: number): number;
  gc_store(now: number, ticket: number, bytes: number, small: number): number;
  gc_body(n: number): number;
  gc_idem_begin(now: number, len: number, r0: number, r1: number, r2: number, r3: number): number;
  gc_idem_finish(now: number, len: number, status: number): number;
  gc_dropped(): number;
  gc_abort(ticket: number): number;
  gc_leave(flight: number): number;
  gc_arm(now: number, status: number, ttlMs: number): number;
  gc_clear(): number;
  gc_read(now: number): number;
  gc_until(): number;
  gc_status(): number;
  gc_metric(i: number): number;
}

/** gc_idem_begin: a decision (> 0) or a refusal (< 0), wasm/main.go. */
export const enum Idem {
  Start = 1,
  Retry = 2,
  Join = 3,
  KeyReused = -4,
  LedgerFull = -5,
  BadBody = -6,
  BadKey = -7,
  Off = -8,
}

export interface Submission {
  code: Idem;
  key: string;
  header: string;
  message: string;
}

export interface Engine {
  /** guard.Quiet, read from Go's memory without a call. */
  quiet(): boolean;
  /** A ticket for a request sent on the quiet path, whose answer matters. */
  adopt(method: string, url: string): number;
  begin(now: number, method: string, url: string, headers: string): Answer;
  finish(now: number, ticket: number, status: number, retryAfter: string, cacheControl: string): Outcome;
  /** The answer of a request sent before the wasm ran; true when the circuit changed. */
  observe(now: number, method: string, url: string, status: number, retryAfter: string): boolean;
  /** Keeps a body as the ticket's copy; returns its id (0: not kept). */
  store(now: number, ticket: number, body: ArrayBuffer): number;
  /** Ids of stale copies to release. */
  dropped(): number[];
  /** Registers a mutation before it is sent (idempotency keys). */
  idemBegin(now: number, operation: string, givenKey: string, body: Uint8Array): Submission;
  idemFinish(now: number, operation: string, key: string, status: number): void;
  abort(ticket: number): boolean;
  leave(flight: number): boolean;
  /** Negative on bad input; `message()` says why. */
  arm(now: number, status: number, ttlMs: number): number;
  clear(): number;
  read(now: number): number;
  until(): number;
  status(): number;
  metric(i: number): number;
  message(): string;
  /** Size of Go's linear memory, in bytes. */
  memoryBytes(): number;
  /** Settles when the Go program stops; it should never. */
  readonly exited: Promise<void>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Fetches, compiles and starts the wasm, then hands it the configuration. */
export async function loadEngine(wasmUrl: string, configText: string, fetchFn: typeof fetch): Promise<Engine> {
  const go = newGo();
  if (!go) throw new Error("Go's wasm_exec.js runtime is missing");
  const res = await fetchFn(wasmUrl, { credentials: "same-origin" });
  if (!res.ok) throw new Error(`${wasmUrl}: HTTP ${res.status}`);
  const { instance } =
    (res.headers.get("content-type") ?? "").startsWith("application/wasm")
      ? await WebAssembly.instantiateStreaming(res, go.importObject)
      : await WebAssembly.instantiate(await res.arrayBuffer(), go.importObject);
  // run() executes main synchronously until it parks; the exports work from here.
  const exited = runGo(go, instance).then(() => {
    throw new Error("the Go program exited");
  });
  exited.catch(() => {});
  if (go.exited) throw new Error("the Go program exited during start-up");

  const ex = instance.exports as unknown as Exports;
  const ptr = ex.gc_buf();
  const cap = ex.gc_buf_cap();
  const outPtr = ex.gc_out();
  let bytes = new Uint8Array(ex.mem.buffer, ptr, cap);
  let out = new Float64Array(ex.mem.buffer, outPtr, 8);
  const quietPtr = ex.gc_quiet();
  let quiet = new Int32Array(ex.mem.buffer, quietPtr, 1);
  // A grown memory detaches the old views; check before each use.
  const fresh = () => {
    if (bytes.byteLength === 0) {
      bytes = new Uint8Array(ex.mem.buffer, ptr, cap);
      out = new Float64Array(ex.mem.buffer, outPtr, 8);
      quiet = new Int32Array(ex.mem.buffer, quietPtr, 1);
    }
  };
  // Longer strings are cut: scope matching and keys only need the prefix.
  const put = (s: string) => {
    fresh();
    return encoder.encodeInto(s, bytes).written;
  };
  const message = () => {
    fresh();
    return decoder.decode(bytes.slice(0, ex.gc_message_len()));
  };

  const r = ex.gc_configure(Date.now(), put(configText));
  if (r < 0) throw new Error(`invalid configuration: ${message()}`);

  return {
    quiet() {
      fresh();
      return quiet[0] === 1;
    },
    adopt: (method, url) => ex.gc_adopt(put(`${method}\n${url}\n`)),
    begin(now, method, url, headers) {
      const r = ex.gc_begin(now, put(`${method}\n${url}\n${headers}`));
      fresh();
      return {
        kind: (r & 15) as Kind,
        changed: (r & CHANGED) !== 0,
        ticket: out[0]!,
        flight: out[1]!,
        until: out[2]!,
        status: out[3]!,
        copyId: out[4]!,
        ageMs: out[5]!,
        storedAtMs: out[6]!,
        probe: out[7]!,
      };
    },
    finish(now, ticket, status, retryAfter, cacheControl) {
      // Most answers carry neither header: then nothing is encoded.
      const n = retryAfter || cacheControl ? put(`${retryAfter}\n${cacheControl}`) : 0;
      const flags = ex.gc_finish(now, ticket, status, n);
      fresh();
      return { flags, waitMs: out[0]!, copyId: out[4]!, ageMs: out[5]!, storedAtMs: out[6]! };
    },
    observe: (now, method, url, status, retryAfter) =>
      (ex.gc_observe(now, status, put(`${method}\n${url}\n${retryAfter}`)) & CHANGED) !== 0,
    store(now, ticket, body) {
      // A short body goes to Go whole: it decides whether it is "empty".
      const small = body.byteLength <= 64 ? body.byteLength : -1;
      if (small > 0) new Uint8Array(ex.mem.buffer, ex.gc_body(small), small).set(new Uint8Array(body));
      return ex.gc_store(now, ticket, body.byteLength, small);
    },
    dropped() {
      const ids: number[] = [];
      for (let id = ex.gc_dropped(); id !== 0; id = ex.gc_dropped()) ids.push(id);
      return ids;
    },
    idemBegin(now, operation, givenKey, body) {
      const at = ex.gc_body(body.length); // may grow memory: view after the call
      if (body.length) new Uint8Array(ex.mem.buffer, at, body.length).set(body);
      const r = crypto.getRandomValues(new Int32Array(4));
      const code = ex.gc_idem_begin(now, put(`${operation}\n${givenKey}`), r[0]!, r[1]!, r[2]!, r[3]!) as Idem;
      if (code < 0) return { code, key: "", header: "", message: message() };
      fresh();
      const [key = "", header = ""] = decoder.decode(bytes.slice(0, out[0]!)).split("\n");
      return { code, key, header, message: "" };
    },
    idemFinish(now, operation, key, status) {
      ex.gc_idem_finish(now, put(`${operation}\n${key}`), status);
    },
    abort: (ticket) => ex.gc_abort(ticket) === 1,
    leave: (flight) => ex.gc_leave(flight) === 1,
    arm: (now, status, ttlMs) => ex.gc_arm(now, status, ttlMs),
    clear: () => ex.gc_clear(),
    read: (now) => ex.gc_read(now),
    until: () => ex.gc_until(),
    status: () => ex.gc_status(),
    metric: (i) => ex.gc_metric(i),
    message,
    memoryBytes: () => ex.mem.buffer.byteLength,
    exited,
  };
}
