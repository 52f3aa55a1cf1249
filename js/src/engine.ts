// The glue between JS and the Go core. JS owns every JS object (fetch, the
// Promise, the Response); Go owns the policy and the state and answers through
// numeric //go:wasmexport functions (wasm/main.go). Strings cross by being
// encoded into a buffer in Go's memory: nothing per request goes through
// syscall/js or js.FuncOf, which measured 25-285 µs per call against ~0.05 µs
// for an export (../docs/performance.md).

import { newGo, runGo } from "./goruntime.js";

/** Flags returned by decide/observe/read/clear; wasm/main.go defines them. */
export const PASS = 0;
export const ALLOW = 1;
export const BLOCK = 2;
export const CHANGED = 4;

interface Exports {
  mem: WebAssembly.Memory;
  gc_buf(): number;
  gc_buf_cap(): number;
  gc_message_len(): number;
  gc_configure(now: number, len: number): number;
  gc_decide(now: number, len: number): number;
  gc_observe(now: number, status: number): number;
  gc_arm(now: number, status: number, ttlMs: number): number;
  gc_clear(): number;
  gc_read(now: number): number;
  gc_until(): number;
  gc_status(): number;
}

export interface Engine {
  decide(now: number, url: string): number;
  observe(now: number, status: number): number;
  /** Negative on bad input; `message()` says why. */
  arm(now: number, status: number, ttlMs: number): number;
  clear(): number;
  read(now: number): number;
  until(): number;
  status(): number;
  message(): string;
  /** Size of Go's linear memory, in bytes. */
  memoryBytes(): number;
  /** Settles when the Go program stops; it should never. */
  readonly exited: Promise<void>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Fetches, compiles and starts the wasm, then hands it the policy. */
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
  let bytes = new Uint8Array(ex.mem.buffer, ptr, cap);
  // A grown memory detaches the old view; check before each use.
  const view = () => (bytes.byteLength === 0 ? (bytes = new Uint8Array(ex.mem.buffer, ptr, cap)) : bytes);
  // URLs longer than the buffer are cut: scope matching only needs the prefix.
  const put = (s: string) => encoder.encodeInto(s, view()).written;
  const message = () => decoder.decode(view().slice(0, ex.gc_message_len()));

  const r = ex.gc_configure(Date.now(), put(configText));
  if (r < 0) throw new Error(`invalid configuration: ${message()}`);

  return {
    decide: (now, url) => ex.gc_decide(now, put(url)),
    observe: (now, status) => ex.gc_observe(now, status),
    arm: (now, status, ttlMs) => ex.gc_arm(now, status, ttlMs),
    clear: () => ex.gc_clear(),
    read: (now) => ex.gc_read(now),
    until: () => ex.gc_until(),
    status: () => ex.gc_status(),
    message,
    memoryBytes: () => ex.mem.buffer.byteLength,
    exited,
  };
}
