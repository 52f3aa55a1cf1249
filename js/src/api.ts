// The one public object. The module goes through phases — the stand-in
// before the facade's file runs (early.ts), the facade with its pre-ready
// gate and then Go (circuit.ts), the pass-through where there is no tag
// (passthrough.ts) — and each phase is a Decider. The object apps hold is
// built once, here, and asks the current decider, so a phase change is a
// swap behind it: callers keep the same object and the same unbound methods.

import { isCircuitOpenError, isGatewayError, isIdempotencyError } from "./brand.js";
import { type FetchJSON, createQueryFn, createRetry } from "./query.js";
import { isHttpStatus } from "./storage.js";
import type { Diagnostics, GatewayCircuit, Listener } from "./types.js";

/** What a phase decides: the public API but for what is the same in every phase (the guards, queryFn over fetchJSON). */
export type Decider = Omit<GatewayCircuit, "queryFn" | "retry" | "isGatewayError" | "isCircuitOpenError" | "isIdempotencyError" | "diagnostics" | "subscribe"> & {
  /** What the phase has to show besides its status; what it leaves out is 0. */
  diagnostics(): Partial<Omit<Diagnostics, "status">>;
  /** `told`: the listener heard of the restored state from the phase before (state.ts restore). */
  subscribe(listener: Listener, told?: boolean): () => void;
};

/** The public object over the decider `current()` returns at each call. */
export function createApi(current: () => Decider): GatewayCircuit {
  const fetchJSON: FetchJSON = (input, init) => current().fetchJSON(input, init);
  const api: GatewayCircuit = {
    fetch: (input, init) => current().fetch(input, init),
    read: () => current().read(),
    arm(httpStatus, ttlMs) {
      // The same RangeError for a bad status or TTL in every phase.
      if (!isHttpStatus(httpStatus)) {
        throw new RangeError(`gatewayCircuit.arm: httpStatus must be an integer from 100 to 599, got ${String(httpStatus)}`);
      }
      if (ttlMs !== undefined && !(typeof ttlMs === "number" && ttlMs >= 1 && ttlMs < Infinity)) {
        throw new RangeError(`gatewayCircuit.arm: ttlMs must be a number ≥ 1 or omitted, got ${String(ttlMs)}`);
      }
      return current().arm(httpStatus, ttlMs);
    },
    clear: () => current().clear(),
    blocking: () => current().blocking(),
    forget: () => current().forget(),
    subscribe: (listener) => current().subscribe(listener),
    get ready() {
      return current().ready;
    },
    get status() {
      return current().status;
    },
    get error() {
      return current().error;
    },
    metrics: () => current().metrics(),
    diagnostics: () => ({ status: current().status, wasmMemoryBytes: 0, listeners: 0, flights: 0, staleCopies: 0, ...current().diagnostics() }),
    fetchJSON,
    queryFn: createQueryFn(fetchJSON),
    retry: (failureCount, error) => retry(failureCount, error),
    retryDelay: (failureCount, error) => current().retryDelay(failureCount, error),
    // The guards read a registered-symbol brand: the same in every bundle.
    isGatewayError,
    isCircuitOpenError,
    isIdempotencyError,
    get options() {
      return current().options;
    },
  };
  // The rule reads the phase's blocking() and status through the object: the same in every phase.
  const retry = createRetry(3, api);
  return api;
}

