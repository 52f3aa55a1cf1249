// What the stand-in (early.ts), the facade (circuit.ts) and the pass-through
// (passthrough.ts) answer alike: the check of arm()'s arguments, and the
// metrics of a module that has counted nothing.

import { isHttpStatus } from "./storage.js";
import type { Metrics } from "./types.js";

/** Throws the RangeError arm() gives for a bad status or TTL. */
export function checkArm(httpStatus: number, ttlMs: number | undefined): void {
  if (!isHttpStatus(httpStatus)) {
    throw new RangeError(`gatewayCircuit.arm: httpStatus must be an integer from 100 to 599, got ${String(httpStatus)}`);
  }
  if (ttlMs !== undefined && (typeof ttlMs !== "number" || !Number.isFinite(ttlMs) || ttlMs < 1)) {
    throw new RangeError(`gatewayCircuit.arm: ttlMs must be a finite number ≥ 1 (omit it for the default), got ${String(ttlMs)}`);
  }
}

export function noMetrics(): Metrics {
  return {
    calls: 0,
    network: 0,
    answeredLocally: 0,
    passedThrough: 0,
    shortCircuited: 0,
    coalesced: 0,
    negativeHits: 0,
    staleServed: 0,
    probes: 0,
    retries: 0,
    cooledDown: 0,
    emptyReused: 0,
    evicted: 0,
    idempotencyRefused: 0,
    untouched: 0,
    decisions: 0,
  };
}
