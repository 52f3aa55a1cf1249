// The facade without a circuit, where the tag's window.gatewayCircuit cannot
// exist (server.ts) or did not run (index.ts). It guards nothing and never
// throws: fetch is the plain fetch, nothing is armed, subscribers are never
// called. The TanStack helpers keep their real behaviour, so a queryFn or
// retry built from it means the same thing on both sides of a render.

import { inertOptions } from "./config.js";
import { type Decider, createApi } from "./api.js";
import { armed } from "./gate.js";
import { noMetrics } from "./metrics.gen.js";
import { createFetchJSON, createRetryDelay } from "./query.js";
import type { GatewayCircuit } from "./types.js";

const nothing = () => ({ circuit: null, halfOpen: false, pauses: [] });

const plainFetch: typeof fetch = (input, init) => globalThis.fetch(input, init);

/** A GatewayCircuit that guards nothing; `reason` is its `error`. */
export function createPassthrough(reason: Error): GatewayCircuit {
  const options = Object.freeze(inertOptions());
  const plain: Decider = {
    fetch: plainFetch,
    read: () => null,
    // Validated as in every phase (api.ts), so a bad call fails the same
    // way in tests that run without a browser; nothing is stored.
    arm: (httpStatus, ttlMs) => ({ until: armed(options, Date.now(), httpStatus, ttlMs).until, httpStatus }),
    clear() {},
    blocking: nothing,
    forget() {},
    subscribe: () => () => {},
    // Nothing to load: awaiting it never breaks a server render.
    ready: Promise.resolve(),
    status: "fallback" as const,
    error: reason,
    metrics: noMetrics,
    diagnostics: () => ({}),
    fetchJSON: createFetchJSON(plainFetch),
    // Nothing blocks: a 502/503/504 is retried with backoff, as TanStack would.
    retryDelay: createRetryDelay(nothing, () => []),
    options,
  };
  return createApi(() => plain);
}
