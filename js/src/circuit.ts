// The facade: gatewayCircuit.fetch/read/arm/clear/subscribe/ready.
//
// Until the wasm is ready (100-300 ms after the script runs, and apps fire
// queries before that), and for good if it fails to load or dies, a small JS
// gate honours the stored circuit: in-scope requests are refused while it is
// armed. Everything else is the Go core's (internal/guard); this file only
// carries out its decisions with the JS objects: fetch, Promises, Responses,
// AbortSignals, timers, and the bodies of stale copies.

import { type ResolvedOptions, configText } from "./config.js";
import { CHANGED, type Engine, Idem, Kind, RETRY, SERVE, WANT_BODY, loadEngine } from "./engine.js";
import { GatewayIdempotencyError, isCircuitOpenError, isGatewayError, isIdempotencyError } from "./errors.js";
import { createFetchJSON, createRetry, MARKER_HEADER } from "./query.js";
import { inScope, requestUrl } from "./scope.js";
import {
  COOLDOWN_KEY,
  type CircuitState,
  type Pause,
  type StorageLike,
  isHttpStatus,
  readPauses,
  readRaw,
  restore,
  toPayload,
  writeRaw,
} from "./storage.js";
import type { GatewayCircuit, Listener, Metrics, ModuleStatus } from "./types.js";

export interface Environment {
  /** The fetch to guard; captured once, so patching window.fetch later cannot loop. */
  fetch: typeof fetch;
  storage: StorageLike | null;
  /** The base URL relative request URLs resolve against (document.baseURI). */
  baseUrl: () => string;
  now?: () => number;
}

/** The counters of internal/metrics, in their order. */
const METRICS = [
  "network",
  "shortCircuited",
  "coalesced",
  "negativeHits",
  "staleServed",
  "probes",
  "retries",
  "cooledDown",
  "emptyReused",
  "evicted",
] as const;

/** A kept stale copy: the body and what to rebuild the Response with. */
interface Copy {
  body: ArrayBuffer;
  status: number;
  statusText: string;
  headers: [string, string][];
}

interface Joiner {
  resolve(r: Response): void;
  reject(e: unknown): void;
}

/** One request in flight that identical requests share. */
interface Flight {
  joiners: Joiner[];
  /** Set when the leader's caller has a signal: its abort must not end the request for the others. */
  controller: AbortController | null;
  /** A joiner stopped waiting; true when nobody waits any more (cancel the request). */
  leave(): boolean;
  /** Go's id for the flight, when Go tracks it (not on the quiet path). */
  id?: number;
}

const noop = () => {};

function report(e: unknown) {
  // A throwing listener must not stop the others, nor vanish.
  setTimeout(() => {
    throw e;
  });
}

function signalOf(input: RequestInfo | URL, init?: RequestInit): AbortSignal | undefined {
  return init?.signal ?? (typeof Request !== "undefined" && input instanceof Request ? input.signal : undefined);
}

function methodOf(input: RequestInfo | URL, init?: RequestInit): string {
  if (init?.method === undefined && typeof input === "string") return "GET";
  const m = init?.method ?? (typeof Request !== "undefined" && input instanceof Request ? input.method : "GET");
  return m.toUpperCase();
}

function headersOf(input: RequestInfo | URL, init?: RequestInit): HeadersInit | undefined {
  return init?.headers ?? (typeof Request !== "undefined" && input instanceof Request ? input.headers : undefined);
}

/** The request headers as "name: value" lines: they vary the coalescing key. */
function headerBlock(input: RequestInfo | URL, init?: RequestInit): string {
  if (init === undefined && typeof input === "string") return "";
  const h = headersOf(input, init);
  let s = init?.credentials ? `:credentials: ${init.credentials}\n` : "";
  if (!h) return s;
  for (const [k, v] of new Headers(h)) s += `${k}: ${v}\n`;
  return s;
}

const MUTATIONS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const encoder = new TextEncoder();

/** The body's bytes, or null when it cannot be read without consuming it. */
async function bodyBytes(input: RequestInfo | URL, init?: RequestInit): Promise<Uint8Array | null> {
  const b = init?.body;
  if (b === undefined || b === null) {
    if (typeof Request !== "undefined" && input instanceof Request && input.body) {
      return new Uint8Array(await input.clone().arrayBuffer());
    }
    return new Uint8Array(0);
  }
  if (typeof b === "string") return encoder.encode(b);
  if (b instanceof URLSearchParams) return encoder.encode(b.toString());
  if (b instanceof ArrayBuffer) return new Uint8Array(b);
  if (ArrayBuffer.isView(b)) return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  if (typeof Blob !== "undefined" && b instanceof Blob) return new Uint8Array(await b.arrayBuffer());
  return null; // FormData (its multipart boundary is random), ReadableStream
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

export function createGatewayCircuit(o: ResolvedOptions, env: Environment): GatewayCircuit {
  const nativeFetch = env.fetch;
  const storage = env.storage;
  const now = env.now ?? Date.now;
  const listeners = new Set<Listener>();
  const flights = new Map<number, Flight>(); // Go's flight id → the flight
  const fastFlights = new Map<string, Flight & { waiters: number }>(); // "GET url" → the flight (quiet path)
  const fast = { network: 0, coalesced: 0 }; // what the quiet path adds to Go's metrics
  const probeWaiters = new Map<number, (() => void)[]>();
  const copies = new Map<number, Copy>();
  const mutations = new Map<string, Joiner[]>(); // "op\nkey" of actions in flight → who shares them
  let engine: Engine | null = null;
  let status: ModuleStatus = "loading";
  let lastError: Error | null = null;
  let state: CircuitState | null = null; // mirror of the Go state (before ready: of storage)
  let timer: ReturnType<typeof setTimeout> | undefined;

  // The pre-ready gate reads the stored circuit (and the 429 pauses) once, synchronously.
  const pauses: Pause[] = readPauses(readRaw(storage, COOLDOWN_KEY), now());
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
    console.warn(
      `[gatewaycircuit] the wasm is not running (${lastError.message}); the stored circuit is still honoured, but responses no longer arm it`,
    );
    // Whoever waits on the Go side's decisions goes again, through the JS gate.
    for (const id of [...probeWaiters.keys()]) releaseProbe(id);
  }

  /** Calls into Go; null when the Go side is gone (the caller falls back). */
  function call<T>(f: (e: Engine) => T): T | null {
    const e = engine;
    if (!e) return null;
    try {
      return f(e);
    } catch (err) {
      die(err);
      return null;
    }
  }

  function sync(changed: boolean) {
    if (changed && engine) call(syncFromEngine);
  }

  /** The synthetic answer: the marker says which policy answered. */
  function synthetic(marker: "open" | "cooldown" | "negative", until: number, httpStatus: number): Response {
    const retryAfter = Math.max(1, Math.ceil((until - now()) / 1000));
    const error = { open: "gateway_circuit_open", cooldown: "gateway_cooldown", negative: "gateway_negative_cache" }[marker];
    return new Response(`{"error":"${error}","httpStatus":${httpStatus},"until":${until}}`, {
      status: 503,
      statusText: "Service Unavailable",
      headers: { "content-type": "application/json", [MARKER_HEADER]: marker, "retry-after": String(retryAfter) },
    });
  }

  function openResponse(): Response {
    const s = state ?? { until: now(), httpStatus: 503 };
    return synthetic("open", s.until, s.httpStatus);
  }

  /** A kept copy, saying that it is stale (or "cached") and how old. */
  function staleResponse(id: number, ageMs: number, storedAtMs: number, marker = "stale"): Response | null {
    const c = copies.get(id);
    if (!c) return null;
    const headers = new Headers(c.headers);
    headers.set("age", String(Math.floor(ageMs / 1000)));
    headers.set(MARKER_HEADER, marker);
    headers.set("x-gateway-collected-at", new Date(storedAtMs).toISOString());
    return new Response(c.body.slice(0), { status: c.status, statusText: c.statusText, headers });
  }

  function guardedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const url = requestUrl(input, env.baseUrl());
    if (url === null) return nativeFetch(input, init); // fetch rejects it with its own TypeError
    if (engine) {
      const method = methodOf(input, init);
      const headers = headerBlock(input, init);
      // Go says no policy has anything to say (guard.Quiet): a plain GET goes
      // out without asking, and only an answer that matters is reported.
      if (headers === "" && (method === "GET" || method === "HEAD") && call((e) => e.quiet())) {
        return quietFetch(method === "GET" ? url : `HEAD ${url}`, method, url, input, init);
      }
      const a = call((e) => e.begin(now(), method, url, headers));
      if (a !== null) {
        sync(a.changed);
        switch (a.kind) {
          case Kind.Pass:
            return nativeFetch(input, init);
          case Kind.Send:
            return o.idempotency && MUTATIONS.has(method)
              ? sendMutation(a.ticket, `${method} ${url}`, input, init)
              : send(a.ticket, goFlight(a.flight, signalOf(input, init)), a.probe, method, url, input, init);
          case Kind.Join: {
            const flight = flights.get(a.flight);
            // (Go and JS track the same flights; a missing one cannot happen.)
            return flight ? join(flight, input, init) : nativeFetch(input, init);
          }
          case Kind.Wait:
            return waitForProbe(a.flight, input, init);
          case Kind.Open:
            return Promise.resolve(synthetic("open", a.until, a.status));
          case Kind.Cooling:
            return Promise.resolve(synthetic("cooldown", a.until, 429));
          case Kind.Negative:
            return Promise.resolve(synthetic("negative", a.until, a.status));
          case Kind.Stale:
            return Promise.resolve(
              staleResponse(a.copyId, a.ageMs, a.storedAtMs) ?? synthetic("open", a.until || now(), a.status || 503),
            );
          case Kind.Cached: {
            // The key keeps answering empty: its last answer, said to be cached.
            const cached = staleResponse(a.copyId, a.ageMs, a.storedAtMs, "cached");
            if (cached) return Promise.resolve(cached);
            break; // the copy is gone: ask the network
          }
        }
      }
    }
    // The JS gate: loading, or the wasm is gone.
    if (!inScope(url, o.scope)) return nativeFetch(input, init);
    if (state && now() < state.until) return Promise.resolve(openResponse());
    for (const p of pauses) {
      if (url.startsWith(p.service) && now() < p.until) return Promise.resolve(synthetic("cooldown", p.until, 429));
    }
    if (state) read();
    const p = nativeFetch(input, init);
    // Once Go runs, it learns how this went, without making the caller wait.
    if (status === "loading") {
      const method = methodOf(input, init);
      const late = (st: number, ra: string) => () =>
        sync(call((e) => e.observe(now(), method, url, st, ra)) ?? false);
      p.then(
        (res) => ready.then(late(res.status, res.headers.get("retry-after") ?? ""), noop),
        () => ready.then(late(0, ""), noop),
      );
    }
    return p;
  }

  /** Reports an answer to Go and applies its outcome; returns the flags. */
  function finish(ticket: number, res: Response | null) {
    const st = res ? res.status : 0;
    const ra = res && (st === 429 || st === 503) ? (res.headers.get("retry-after") ?? "") : "";
    const cc = res && (o.stale || o.emptyTtl) && res.ok ? (res.headers.get("cache-control") ?? "") : "";
    const out = call((e) => e.finish(now(), ticket, st, ra, cc));
    if (!out) return null;
    sync((out.flags & CHANGED) !== 0);
    if (res && out.flags & WANT_BODY) keep(ticket, res.clone());
    return out;
  }

  /** Keeps the body of a good answer as its key's stale copy. */
  function keep(ticket: number, res: Response) {
    res.arrayBuffer().then((body) => {
      const id = call((e) => e.store(now(), ticket, body));
      if (id) copies.set(id, { body, status: res.status, statusText: res.statusText, headers: [...res.headers] });
      for (const d of call((e) => e.dropped()) ?? []) copies.delete(d);
    }, noop);
  }

  /** A flight Go tracks (flightId 0: not coalesced). */
  function goFlight(flightId: number, signal: AbortSignal | undefined): Flight | null {
    if (!flightId) return null;
    const flight: Flight = {
      joiners: [],
      controller: signal ? new AbortController() : null,
      leave: () => call((e) => e.leave(flightId)) ?? false,
      id: flightId,
    };
    flights.set(flightId, flight);
    return flight;
  }

  /** Leaving a quiet-path flight: true when nobody waits any more. */
  function leaveFast(this: Flight & { waiters: number }) {
    return --this.waiters === 0;
  }

  /** The quiet path: coalesced in JS, sent without a ticket (see send). */
  function quietFetch(key: string, method: string, url: string, input: RequestInfo | URL, init?: RequestInit) {
    const shared = o.coalesce ? fastFlights.get(key) : undefined;
    if (shared) {
      shared.waiters++;
      fast.coalesced++;
      return join(shared, input, init);
    }
    fast.network++;
    let flight: (Flight & { waiters: number }) | null = null;
    if (o.coalesce) {
      flight = { joiners: [], controller: signalOf(input, init) ? new AbortController() : null, waiters: 1, leave: leaveFast };
      fastFlights.set(key, flight);
    }
    return send(0, flight, 0, method, url, input, init, () => fastFlights.delete(key));
  }

  /**
   * Sends to the network, with retry, stale fallback and joiners. ticket 0 is
   * the quiet path: the answer is reported (through a ticket adopted then) only
   * when it matters; a 2xx-4xx but 429 changes nothing (guard.Quiet).
   */
  function send(
    ticket: number,
    flight: Flight | null,
    probeId: number,
    method: string,
    url: string,
    input: RequestInfo | URL,
    init?: RequestInit,
    ended?: () => void,
  ) {
    const signal = signalOf(input, init);
    // Joiners must not lose the answer because the leader's caller aborted:
    // the request then runs on its own controller.
    const controller = flight?.controller ?? null;
    const fetchInit = controller ? { ...init, signal: controller.signal } : init;

    const settle = (res: Response | null, err: unknown) => {
      ended?.();
      if (flight?.id) flights.delete(flight.id);
      if (probeId) releaseProbe(probeId);
      for (const j of flight?.joiners ?? []) {
        if (res) j.resolve(res.clone());
        else j.reject(err);
      }
    };

    const report = (res: Response | null) => {
      if (!ticket) {
        const st = res ? res.status : 0;
        if (st >= 100 && st < 500 && st !== 429) return null;
        ticket = call((e) => e.adopt(method, url)) ?? 0;
        if (!ticket) return null;
      }
      return finish(ticket, res);
    };

    const attempt = (): Promise<Response> =>
      nativeFetch(input, fetchInit).then(
        (res) => {
          const out = report(res);
          if (out && out.flags & RETRY && !signal?.aborted) {
            // A short Retry-After on a 429: wait (an abort cancels), then once more.
            return delay(out.waitMs, signal).then(attempt, (e: unknown) => {
              call((en) => en.abort(ticket));
              settle(null, e);
              throw e;
            });
          }
          const served = out && out.flags & SERVE ? staleResponse(out.copyId, out.ageMs, out.storedAtMs) : null;
          if (served) {
            void res.body?.cancel().catch(noop);
            settle(served, null);
            return served;
          }
          settle(res, null);
          return res;
        },
        (err: unknown) => {
          if (signal?.aborted || controller?.signal.aborted) {
            if (ticket) call((e) => e.abort(ticket));
            settle(null, err);
            throw err;
          }
          const out = report(null);
          const served = out && out.flags & SERVE ? staleResponse(out.copyId, out.ageMs, out.storedAtMs) : null;
          settle(served, err);
          if (served) return served;
          throw err;
        },
      );

    const p = attempt();
    if (!controller || !signal) return p;
    // The leader's caller may abort: its promise rejects at once; the network
    // request goes on for the joiners, unless none is left.
    return new Promise<Response>((resolve, reject) => {
      const stop = whenAborted(signal, () => {
        reject(abortError(signal));
        const cancel = ticket ? call((e) => e.abort(ticket)) : flight!.leave();
        if (cancel) controller.abort(signal.reason);
      });
      p.then(resolve, reject).finally(stop);
    });
  }

  /**
   * A mutation in scope: it carries an Idempotency-Key, one per user action
   * (derived from the operation and the canonical body, so a double click or a
   * retry after a failure or a reload reuses it), and identical submissions in
   * flight share one request.
   */
  async function sendMutation(ticket: number, op: string, input: RequestInfo | URL, init?: RequestInit) {
    const body = await bodyBytes(input, init);
    const given = new Headers(headersOf(input, init)).get("idempotency-key") ?? "";
    const sub = body && call((e) => e.idemBegin(now(), op, given, body));
    // A stream or FormData body cannot be fingerprinted: sent as is (README).
    if (!sub || sub.code === Idem.Off) return send(ticket, null, 0, "", "", input, init);
    if (sub.code < 0 || sub.code === Idem.Join) call((e) => e.abort(ticket)); // nothing goes out for this call
    if (sub.code === Idem.KeyReused) {
      return new Response(JSON.stringify({ error: "idempotency_key_reused", message: sub.message }), {
        status: 422,
        statusText: "Unprocessable Content",
        headers: { "content-type": "application/json", [MARKER_HEADER]: "idempotency" },
      });
    }
    if (sub.code < 0) throw new GatewayIdempotencyError(sub.code, sub.message);
    const action = `${op}\n${sub.key}`;
    if (sub.code === Idem.Join) {
      const waiting = mutations.get(action);
      if (waiting) return new Promise<Response>((resolve, reject) => waiting.push({ resolve, reject }));
    }
    const headers = new Headers(headersOf(input, init));
    headers.set("idempotency-key", sub.header);
    const joiners: Joiner[] = [];
    mutations.set(action, joiners);
    const done = (status: number) => {
      mutations.delete(action);
      call((e) => e.idemFinish(now(), op, sub.key, status));
    };
    return send(ticket, null, 0, "", "", input, { ...init, headers }).then(
      (res) => {
        done(res.status);
        for (const j of joiners) j.resolve(res.clone());
        return res;
      },
      (err: unknown) => {
        done(0); // no answer: the effect may have happened; the next try keeps the key
        for (const j of joiners) j.reject(err);
        throw err;
      },
    );
  }

  /** A caller coalesced onto a flight: it gets its own clone of the answer. */
  function join(flight: Flight, input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const signal = signalOf(input, init);
    return new Promise<Response>((resolve, reject) => {
      const joiner: Joiner = {
        resolve: (r) => (stop(), resolve(r)),
        reject: (e) => (stop(), reject(e)),
      };
      const stop = whenAborted(signal, () => {
        const i = flight.joiners.indexOf(joiner);
        if (i >= 0) flight.joiners.splice(i, 1);
        reject(abortError(signal!));
        if (flight.leave()) flight.controller?.abort(signal!.reason);
      });
      if (!signal?.aborted) flight.joiners.push(joiner);
    });
  }

  /** Half-open: wait for the probe to end, then decide again. */
  function waitForProbe(probeId: number, input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const signal = signalOf(input, init);
    return new Promise<Response>((resolve, reject) => {
      const resume = () => {
        stop();
        guardedFetch(input, init).then(resolve, reject);
      };
      const stop = whenAborted(signal, () => {
        const list = probeWaiters.get(probeId);
        const i = list ? list.indexOf(resume) : -1;
        if (i >= 0) list!.splice(i, 1);
        reject(abortError(signal!));
      });
      if (signal?.aborted) return;
      let list = probeWaiters.get(probeId);
      if (!list) {
        probeWaiters.set(probeId, (list = []));
        // A probe that never answers is replaced after its timeout; so are its waiters.
        setTimeout(() => releaseProbe(probeId), 30_000);
      }
      list.push(resume);
    });
  }

  function releaseProbe(probeId: number) {
    const list = probeWaiters.get(probeId);
    probeWaiters.delete(probeId);
    for (const resume of list ?? []) resume();
  }

  function read(): CircuitState | null {
    const r = call((e) => e.read(now()));
    if (r !== null) sync((r & CHANGED) !== 0);
    else if (state && !(now() < state.until)) {
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
    if (r !== null) sync((r & CHANGED) !== 0);
    else {
      const next = { until: now() + (ttl === 0 ? o.ttlMs : Math.min(Math.floor(ttl), o.maxTtlMs)), httpStatus };
      writeRaw(storage, toPayload(next));
      setState(next);
    }
    return { ...state! };
  }

  function clear(): void {
    const r = call((e) => e.clear());
    if (r !== null) sync((r & CHANGED) !== 0);
    else {
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

  function metrics(): Metrics {
    const m = {} as Record<(typeof METRICS)[number], number>;
    METRICS.forEach((name, i) => {
      m[name] = call((e) => e.metric(i)) ?? 0;
    });
    m.network += fast.network;
    m.coalesced += fast.coalesced;
    return m;
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
    metrics,
    diagnostics: () => ({
      status,
      wasmMemoryBytes: call((e) => e.memoryBytes()) ?? 0,
      listeners: listeners.size,
      flights: flights.size + fastFlights.size,
      staleCopies: copies.size,
    }),
    fetchJSON,
    queryFn: (input, init) => ({ signal }) => fetchJSON(input, { ...init, signal }),
    retry: createRetry(o.tripStatuses),
    isGatewayError,
    isCircuitOpenError,
    isIdempotencyError,
    options: Object.freeze({ ...o, scope: [...o.scope], tripStatuses: [...o.tripStatuses] }),
  };
}

/** Resolves after ms, or rejects when signal aborts first. */
function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => (stop(), resolve()), ms);
    const stop = whenAborted(signal, () => {
      clearTimeout(t);
      reject(abortError(signal!));
    });
  });
}

/**
 * Runs onAbort once when signal aborts (at once if it already has); returns
 * what stops listening. The one way this file watches a caller's signal.
 */
function whenAborted(signal: AbortSignal | undefined, onAbort: () => void): () => void {
  if (!signal) return noop;
  if (signal.aborted) {
    onAbort();
    return noop;
  }
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}
