import type { ResolvedOptions } from "./config.js";
import type { GatewayErrorCode, GatewayHttpError, GatewayIdempotencyError, IdempotencyErrorCode } from "./errors.js";
import type { QueryFnInit } from "./query.js";
import type { Metrics } from "./metrics.gen.js";
import type { CircuitState, Pause } from "./storage.js";

export type { CircuitState, GatewayErrorCode, GatewayHttpError, GatewayIdempotencyError, IdempotencyErrorCode, Metrics, Pause, QueryFnInit, ResolvedOptions };

/**
 * Called with the armed circuit (or null) and everything that blocks
 * requests, whenever any of it changes: arm, clear, expiry, a 429 pause, its end.
 */
export type Listener = (state: CircuitState | null, blocking: Blocking) => void;

/** Everything that blocks in-scope requests right now: what, why, until when. */
export interface Blocking {
  /** Armed: every in-scope request gets the synthetic 503 (X-Gateway-Circuit: open) until `until`. */
  readonly circuit: CircuitState | null;
  /** The TTL is over but the outage is remembered: the next in-scope request is the one probe, the others wait for it. */
  readonly halfOpen: boolean;
  /** Services paused after a 429: their requests get a synthetic 503 (X-Gateway-Circuit: cooldown). */
  readonly pauses: readonly Pause[];
}

/** loading: the JS gate runs, the wasm is starting. ready: the Go core decides. fallback: the wasm failed; the JS gate runs for good. */
export type ModuleStatus = "loading" | "ready" | "fallback";

export interface Diagnostics {
  status: ModuleStatus;
  /** Go's linear memory (0 when the wasm is not running). */
  wasmMemoryBytes: number;
  listeners: number;
  /** Coalesced requests in flight. */
  flights: number;
  /** Stale copies whose bodies are kept. */
  staleCopies: number;
}

/** fetch's init, and the module's one option of its own. */
export interface GatewayRequestInit extends RequestInit {
  /**
   * A deadline for this in-scope request, in ms until its answer's headers,
   * or `false` for none (default `data-timeout-ms`: none unless set). Past it
   * the request is aborted, the promise rejects with a `TimeoutError` (a
   * DOMException, as fetch's for `AbortSignal.timeout`), and the circuit
   * counts it as the gateway's 504.
   */
  timeout?: number | false;
}

export interface GatewayCircuit {
  /**
   * Same contract as fetch. While the circuit is armed, an in-scope request
   * resolves to a synthetic 503 (`X-Gateway-Circuit: open`, `Retry-After`,
   * JSON body `{error, httpStatus, until}`) without touching the network.
   */
  fetch(input: RequestInfo | URL, init?: GatewayRequestInit): Promise<Response>;
  /** The armed circuit, or null. An expired one is closed and removed. */
  read(): CircuitState | null;
  /** Arms the circuit; ttlMs defaults to data-ttl-ms and is capped at data-max-ttl-ms. */
  arm(httpStatus: number, ttlMs?: number): CircuitState;
  /**
   * The user's "try again": closes the circuit and ends everything the module
   * chose on its own (the probe state, the negative cache, 429 pauses without
   * Retry-After). A pause the server asked for stays, visible in blocking().
   */
  clear(): void;
  blocking(): Blocking;
  /**
   * Logout: drops what belongs to the user — stale and empty-result copies,
   * pending idempotency keys, and sharing with requests in flight — so the
   * next user of the tab never receives it.
   */
  forget(): void;
  /** Calls `listener` on every change (Listener), and in a microtask after subscribing if a circuit restored from an earlier load is armed. */
  subscribe(listener: Listener): () => void;
  /** Resolves when the wasm runs; rejects if it cannot. The API works before. */
  readonly ready: Promise<void>;
  readonly status: ModuleStatus;
  /** Why the wasm is not running, when status is "fallback". */
  readonly error: Error | null;
  /** Counters per policy, for dashboards. */
  metrics(): Metrics;
  /** For dashboards and soak tests: what the module holds right now. */
  diagnostics(): Diagnostics;
  /**
   * fetch + JSON for TanStack's queryFn; throws GatewayHttpError for non-2xx.
   * `T` is what the caller expects (like `res.json() as T`): nothing checks it.
   */
  fetchJSON<T = unknown>(input: RequestInfo | URL, init?: GatewayRequestInit): Promise<T>;
  /** `queryFn: gatewayCircuit.queryFn<User>("/api/me")`: fetchJSON for TanStack; an unmount aborts it only with `init.abortOnUnmount` (QueryFnInit). */
  queryFn<T = unknown>(input: RequestInfo | URL, init?: QueryFnInit): (ctx: { signal?: AbortSignal }) => Promise<T>;
  /**
   * TanStack's `retry`, up to 3 times: a network error, a 5xx while the
   * circuit is closed (a rate limiter's 503), a 408 or a 429, and the answer
   * of a pause the server asked for (Retry-After) once it ends. No other
   * answer the module made up, nothing while the circuit is armed or
   * half-open, no other 4xx, no wait beyond 30 s. Before Go runs it retries
   * as TanStack would: Go judges the retry, and answers an outage's locally.
   */
  retry(failureCount: number, error: unknown): boolean;
  /**
   * TanStack's `retryDelay`: the later of the server's Retry-After (or the end
   * of the pause that answered) and the module's pause for the request's
   * service; else TanStack's own backoff (1, 2, 4 s…, at most 30 s).
   */
  retryDelay(failureCount: number, error: unknown): number;
  isGatewayError(e: unknown): e is GatewayHttpError;
  isCircuitOpenError(e: unknown): e is GatewayHttpError & { circuitOpen: true };
  /** A mutation refused before the network: the app's own Idempotency-Key is malformed. */
  isIdempotencyError(e: unknown): e is GatewayIdempotencyError;
  /** The options in force, after data-* parsing; undefined until the facade's file has run, and for good if it fails (the tag's file has no room for the reader). */
  readonly options: Readonly<ResolvedOptions> | undefined;
}
