// window.gatewayCircuit before the facade's file has run: the tag's file
// (script.ts) must be small, because it blocks the first paint, so the
// facade, the pre-ready gate and the policies come in a second file, loaded
// at once without blocking. Until it runs, this stands in:
//
// - fetch: with nothing stored (no circuit, no pause) a GET or HEAD goes out
//   at once, and the facade learns how it went when it arrives; any other
//   call (a mutation, or anything while a circuit or a pause is stored)
//   waits for the facade, which decides it as it decides every call.
// - read() and blocking() read the stored circuit; subscribe() and forget()
//   are handed over; arm() writes the circuit in the stored format (what
//   apps without the module write); clear() removes it and is done again by
//   the facade. The rest waits for the facade or answers as an idle module.
//
// When the facade arrives it takes this object over (adopt): its own
// properties replace these, so the object apps hold is the facade itself.
// If its file cannot load, calls go to the plain fetch (status "fallback",
// one console.warn) and the page keeps working.

import { DEFAULT_TRIP_STATUSES, DEFAULT_TTL_MS } from "./config.js";
import { isCircuitOpenError, isGatewayError, isIdempotencyError } from "./brand.js";
import { createRetry } from "./query.js";
import { isRequest, methodOf } from "./request.js";
import { COOLDOWN_KEY, type CircuitState, type StorageLike, parsePayload, readRaw, toStored, writeRaw } from "./storage.js";
import { checkArm, noMetrics } from "./surface.js";
import type { Blocking, GatewayCircuit, Listener } from "./types.js";

/** A call sent before the facade ran: what was asked, and its answer. */
export interface EarlyCall {
  input: RequestInfo | URL;
  init: RequestInit | undefined;
  answer: Promise<Response>;
}

/** What the facade takes over: the calls already sent, and what to do again. */
export interface Handover {
  sent: EarlyCall[];
  clear: boolean;
  forget: boolean;
}

export interface Early {
  api: GatewayCircuit;
  /** The facade has run: it becomes the API; returns what it must take over. */
  adopt(facade: GatewayCircuit): Handover;
  /** The facade's file did not load or run (nothing, once it took over): the plain fetch from now on. */
  fail(err: Error): void;
}

export function createEarly(nativeFetch: typeof fetch, storage: StorageLike | null, ttlAttribute: string | undefined): Early {
  let facade: GatewayCircuit | null = null;
  let failed: Error | null = null;
  let arrive: (f: GatewayCircuit | null) => void = () => {};
  const arrived = new Promise<GatewayCircuit | null>((r) => (arrive = r));
  const listeners = new Map<Listener, () => void>();
  const handover: Handover = { sent: [], clear: false, forget: false };

  /** The facade, or null once its file failed: then the plain fetch. */
  const later = <T>(f: (g: GatewayCircuit) => T | Promise<T>, plain: () => T | Promise<T>) =>
    arrived.then((g) => (g ? f(g) : plain()));

  function read(): CircuitState | null {
    const s = parsePayload(readRaw(storage) ?? "");
    return s && Date.now() < s.until ? { until: s.until, httpStatus: s.httpStatus } : null;
  }

  function plainJSON(input: RequestInfo | URL, init?: RequestInit) {
    return nativeFetch(input, init).then((res) => {
      if (!res.ok) throw new Error(`HTTP ${res.status} from ${res.url}`);
      return res.status === 204 ? undefined : res.json();
    });
  }

  const earlyRetry = createRetry(DEFAULT_TRIP_STATUSES);

  const api = {
    fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
      if (facade) return facade.fetch(input, init);
      if (failed) return nativeFetch(input, init);
      // Storage that throws holds nothing the facade could read either.
      const m = methodOf(init, isRequest(input) ? input : null);
      if ((m === "GET" || m === "HEAD") && readRaw(storage) === null && readRaw(storage, COOLDOWN_KEY) === null) {
        const answer = nativeFetch(input, init);
        handover.sent.push({ input, init, answer });
        return answer;
      }
      return later((g) => g.fetch(input, init), () => nativeFetch(input, init));
    },
    fetchJSON: <T>(input: RequestInfo | URL, init?: RequestInit): Promise<T> =>
      facade ? facade.fetchJSON<T>(input, init) : (later((g) => g.fetchJSON<T>(input, init), () => plainJSON(input, init)) as Promise<T>),
    queryFn: <T>(input: RequestInfo | URL, init?: RequestInit) =>
      facade
        ? facade.queryFn<T>(input, init)
        : (ctx: { signal?: AbortSignal }) => later((g) => g.queryFn<T>(input, init)(ctx), () => plainJSON(input, init) as Promise<T>),
    read: () => (facade ? facade.read() : read()),
    blocking: (): Blocking => (facade ? facade.blocking() : { circuit: read(), halfOpen: false, pauses: [] }),
    arm(httpStatus: number, ttlMs?: number): CircuitState {
      if (facade) return facade.arm(httpStatus, ttlMs);
      checkArm(httpStatus, ttlMs);
      const state = { until: Date.now() + Math.floor(ttlMs ?? (Number(ttlAttribute) || DEFAULT_TTL_MS)), httpStatus };
      writeRaw(storage, toStored(state)); // the facade's gate reports storage that throws
      return state;
    },
    clear() {
      if (facade) return facade.clear();
      handover.clear = true;
      writeRaw(storage, null);
    },
    forget() {
      if (facade) return facade.forget();
      handover.forget = true;
    },
    subscribe(listener: Listener): () => void {
      if (facade) return facade.subscribe(listener);
      if (typeof listener !== "function") throw new TypeError("gatewayCircuit.subscribe: listener must be a function");
      listeners.set(listener, () => {});
      return () => {
        listeners.get(listener)?.();
        listeners.delete(listener);
      };
    },
    ready: arrived.then((g) => {
      if (!g) throw failed;
      return g.ready;
    }),
    get status() {
      return facade ? facade.status : failed ? "fallback" : "loading";
    },
    get error() {
      return facade ? facade.error : failed;
    },
    metrics: () => (facade ? facade.metrics() : { ...noMetrics(), calls: handover.sent.length, network: handover.sent.length }),
    diagnostics: () =>
      facade ? facade.diagnostics() : { status: api.status, wasmMemoryBytes: 0, listeners: listeners.size, flights: 0, staleCopies: 0 },
    // The facade's rule with the default trip statuses (data-trip-statuses is read by the facade).
    retry: (failureCount: number, error: unknown) => (facade ? facade.retry(failureCount, error) : earlyRetry(failureCount, error)),
    isGatewayError,
    isCircuitOpenError,
    isIdempotencyError,
    get options() {
      return facade?.options;
    },
  } as GatewayCircuit;
  api.ready.catch(() => {}); // for those who await it

  return {
    api,
    adopt(g) {
      facade = g;
      for (const [l] of listeners) listeners.set(l, g.subscribe(l));
      // Its own properties (getters included) over these: callers holding this object now hold the facade.
      for (const k of Reflect.ownKeys(g)) Object.defineProperty(api, k, { ...Object.getOwnPropertyDescriptor(g, k)!, configurable: true });
      arrive(g);
      return handover;
    },
    fail(err) {
      if (facade || failed) return;
      failed = err;
      console.warn(`[gatewaycircuit] ${err.message}: requests are not guarded`);
      arrive(null);
    },
  };
}
