// The browser ESM entry of the npm package. It does not load a second copy of
// the module: it hands out the script tag's window.gatewayCircuit, so every
// bundle on the page shares one circuit. The instance is looked up at each
// call, not at import: a bundle may run before the tag. If the tag never ran
// (missing, blocked by CSP, 404), calls go to a pass-through (plain fetch,
// never armed, status "fallback") and one console.warn says so: the page keeps
// working, as it does when the wasm fails.

import { createApi } from "./api.js";
import { createPassthrough } from "./passthrough.js";
import { createFetchJSON, createQueryFn, createRetryDelay } from "./query.js";
import { type QueryClientConnection, type QueryClientLike, connectQueryClient as connect } from "./tanstack.js";
import type { GatewayCircuit } from "./types.js";

export type * from "./types.js";
export type { Outage, QueryClientConnection, QueryClientLike, QueryLike } from "./tanstack.js";
export { isCircuitOpenError, isGatewayError, isIdempotencyError } from "./brand.js";
export { createRetry, createRetryDelay, MAX_RETRY_DELAY_MS } from "./query.js";
export { isOutageError } from "./tanstack.js";

let missing: GatewayCircuit | null = null;

/** The script tag's instance, or the pass-through when the tag did not run. */
export function getGatewayCircuit(): GatewayCircuit {
  const live = (globalThis as { gatewayCircuit?: GatewayCircuit }).gatewayCircuit;
  if (live) return live;
  if (!missing) {
    missing = createPassthrough(
      new Error("gatewaycircuit: window.gatewayCircuit is not defined; load gateway-circuit.js with a <script> tag before the app (see README)"),
    );
    console.warn(`[gatewaycircuit] ${missing.error!.message}; requests are not guarded`);
  }
  return missing;
}

const api = createApi(getGatewayCircuit);
const fetchJSON = createFetchJSON(api.fetch);

/**
 * window.gatewayCircuit, looked up at each call; methods can be passed around
 * unbound. Its fetchJSON and retryDelay are built here over the instance's
 * fetch and blocking(): the same errors whichever instance answers (set over
 * the API object's own, not passed into it, to keep the tag's file small).
 */
export const gatewayCircuit: GatewayCircuit = Object.assign(api, {
  fetchJSON,
  queryFn: createQueryFn(fetchJSON),
  retryDelay: createRetryDelay(api.blocking, () => api.options?.scope ?? []),
});

/**
 * Connects a TanStack QueryClient to the circuit: what failed because of the
 * gateway is fetched again once it recovers, and the overlay hears whether it is down (tanstack.ts).
 */
export function connectQueryClient(client: QueryClientLike): QueryClientConnection {
  return connect(client, gatewayCircuit);
}
