// The facade: gatewayCircuit.fetch/read/arm/clear/subscribe/ready.
//
// Until the wasm is ready (100-300 ms after the script runs, and apps fire
// queries before that), and for good if it fails to load or dies, a small JS
// gate honours the stored circuit: in-scope requests are refused while it is
// armed. Everything else, arming on a trip status included, is the Go core's.

import { type ResolvedOptions, configText } from "./config.js";
import { ALLOW, BLOCK, CHANGED, type Engine, PASS, loadEngine } from "./engine.js";
import { isCircuitOpenError, isGatewayError } from "./errors.js";
import { createFetchJSON, createRetry, OPEN_HEADER } from "./query.js";
import { inScope, requestUrl } from "./scope.js";
import {
  type CircuitState,
  type StorageLike,
  isHttpStatus,
  readRaw,
  restore,
  toPayload,
  writeRaw,
} from "./storage.js";
import type { GatewayCircuit, Listener, ModuleStatus } from "./types.js";

export interface Environment {
  /** The fetch to guard; captured once, so patching window.fetch later cannot loop. */
  fetch: typeof fetch;
  storage: StorageLike | null;
  /** The base URL relative request URLs resolve against (document.baseURI). */
  baseUrl: () => string;
  now?: () => number;
}

const noop = () => {};

function report(e: unknown) {
  // A throwing listener must not stop the others, nor vanish.
  setTimeout(() => {
    throw e;
  });
}

export function createGatewayCircuit(o: ResolvedOptions, env: Environment): GatewayCircuit {
  const nativeFetch = env.fetch;
  const storage = env.storage;
  const now = env.now ?? Date.now;
  const listeners = new Set<Listener>();
  let engine: Engine | null = null;
  let status: ModuleStatus = "loading";
  let lastError: Error | null = null;
  let state: CircuitState | null = null; // mirror of the Go state (before ready: of storage)
  let timer: ReturnType<typeof setTimeout> | undefined;

  // The pre-ready gate reads the stored circuit once, synchronously.
  {
    const r = restore(readRaw(storage), now(), o.maxTtlMs);
    if (r.action === "remove") writeRaw(storage, null);
    if (r.action === "rewrite" && r.state) writeRaw(storage, toPayload(r.state));
    setState(r.state);
  }

  function setState(next: CircuitState | null) {
    if (next === state || (next && state && next.until === state.until && next.httpStatus === state.httpStatus)) return;
    state = next;
    clearTimeout(timer);
    // The timer is what reports expiry to subscribers (the overlay closes).
    if (state) timer = setTimeout(read, Math.max(0, state.until - now()) + 1);
    const snapshot = state && { ...state };
    for (const l of [...listeners]) {
      try {
        l(snapshot);
      } catch (e) {
        report(e);
      }
    }
  }

  function syncFromEngine(e: Engine) {
    const s = e.status();
    setState(s ? { until: e.until(), httpStatus: s } : null);
  }

  function die(err: unknown) {
    if (status === "fallback") return;
    engine = null;
    status = "fallback";
    lastError = err instanceof Error ? err : new Error(String(err));
    console.warn(`[gatewaycircuit] the wasm is not running (${lastError.message}); the stored circuit is still honoured, but responses no longer arm it`);
  }

  /** Calls into Go; null when the Go side is gone (the caller falls back). */
  function call(f: (e: Engine) => number): number | null {
    const e = engine;
    if (!e) return null;
    try {
      const r = f(e);
      if (r >= 0 && r & CHANGED) syncFromEngine(e);
      return r;
    } catch (err) {
      die(err);
      return null;
    }
  }

  function observe(res: Response): Response {
    call((e) => e.observe(now(), res.status));
    return res;
  }

  function openResponse(): Response {
    const s = state ?? { until: now(), httpStatus: 503 };
    const retryAfter = Math.max(1, Math.ceil((s.until - now()) / 1000));
    return new Response(`{"error":"gateway_circuit_open","httpStatus":${s.httpStatus},"until":${s.until}}`, {
      status: 503,
      statusText: "Service Unavailable",
      headers: { "content-type": "application/json", [OPEN_HEADER]: "open", "retry-after": String(retryAfter) },
    });
  }

  function guardedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const url = requestUrl(input, env.baseUrl());
    if (url === null) return nativeFetch(input, init); // fetch rejects it with its own TypeError
    const r = call((e) => e.decide(now(), url));
    if (r !== null) {
      const d = r & 3;
      if (d === BLOCK) return Promise.resolve(openResponse());
      if (d === PASS) return nativeFetch(input, init);
      if (d === ALLOW) {
        // The caller gets fetch's own promise: no extra hop in its chain.
        // This reaction was registered first, so the state is updated
        // before the caller sees the response.
        const p = nativeFetch(input, init);
        p.then(observe, noop);
        return p;
      }
    }
    // The JS gate: loading, or the wasm is gone.
    if (!inScope(url, o.scope)) return nativeFetch(input, init);
    if (state && now() < state.until) return Promise.resolve(openResponse());
    if (state) read();
    const p = nativeFetch(input, init);
    // Observe once Go runs, without making the caller wait for it.
    if (status === "loading") p.then((res) => ready.then(() => observe(res), noop), noop);
    return p;
  }

  function read(): CircuitState | null {
    if (call((e) => e.read(now())) === null && state && !(now() < state.until)) {
      writeRaw(storage, null);
      setState(null);
    }
    return state && { ...state };
  }

  function arm(httpStatus: number, ttlMs?: number): CircuitState {
    if (!isHttpStatus(httpStatus)) {
      throw new RangeError(`gatewayCircuit.arm: httpStatus must be an integer from 100 to 599, got ${String(httpStatus)}`);
    }
    const ttl = ttlMs ?? 0;
    if (typeof ttl !== "number" || !Number.isFinite(ttl) || ttl < 0) {
      throw new RangeError(`gatewayCircuit.arm: ttlMs must be a finite number >= 0, got ${String(ttlMs)}`);
    }
    const r = call((e) => e.arm(now(), httpStatus, Math.floor(ttl)));
    if (r !== null && r < 0) throw new RangeError(`gatewayCircuit.arm: ${engine?.message() ?? "rejected"}`);
    if (r === null) {
      const next = { until: now() + (ttl === 0 ? o.ttlMs : Math.min(Math.floor(ttl), o.maxTtlMs)), httpStatus };
      writeRaw(storage, toPayload(next));
      setState(next);
    }
    return { ...state! };
  }

  function clear(): void {
    if (call((e) => e.clear()) === null) {
      writeRaw(storage, null);
      setState(null);
    }
  }

  function subscribe(listener: Listener): () => void {
    if (typeof listener !== "function") throw new TypeError("gatewayCircuit.subscribe: listener must be a function");
    listeners.add(listener);
    // Overlay restore: a circuit armed by a previous page load is reported once.
    if (state && now() < state.until) {
      queueMicrotask(() => {
        if (listeners.has(listener) && state && now() < state.until) {
          try {
            listener({ ...state });
          } catch (e) {
            report(e);
          }
        }
      });
    }
    return () => {
      listeners.delete(listener);
    };
  }

  const ready: Promise<void> = (
    o.wasmUrl ? loadEngine(o.wasmUrl, configText(o), nativeFetch) : Promise.reject(new Error("no wasm configured"))
  ).then(
    (e) => {
      engine = e;
      status = "ready";
      e.exited.catch(die);
      syncFromEngine(e);
    },
    (err: unknown) => {
      die(err);
      throw lastError;
    },
  );
  ready.catch(noop); // a rejection is for those who await it, not an unhandledrejection

  const fetchJSON = createFetchJSON(guardedFetch);
  return {
    fetch: guardedFetch,
    read,
    arm,
    clear,
    subscribe,
    ready,
    get status() {
      return status;
    },
    get error() {
      return lastError;
    },
    diagnostics: () => ({ status, wasmMemoryBytes: engine?.memoryBytes() ?? 0, listeners: listeners.size }),
    fetchJSON,
    queryFn: (input, init) => ({ signal }) => fetchJSON(input, { ...init, signal }),
    retry: createRetry(o.tripStatuses),
    isGatewayError,
    isCircuitOpenError,
    options: Object.freeze({ ...o, scope: [...o.scope], tripStatuses: [...o.tripStatuses] }),
  };
}
