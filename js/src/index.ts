// The browser ESM entry of the npm package. It does not load a second copy of
// the module: the script tag (dist/gateway-circuit.js) defines
// window.gatewayCircuit before app code runs, and this entry hands out that
// instance, so every bundle on the page shares one circuit.
//
// `gatewayCircuit` looks the instance up at each call, not at import: a
// bundle may be evaluated before the tag has run. If the tag never ran
// (missing, blocked by CSP, 404), calls go to a pass-through (plain fetch,
// never armed, status "fallback") and one console.warn says so: the page
// keeps working, as it does when the wasm fails. Code that must know checks
// `gatewayCircuit.status` / `.error`.

import { isCircuitOpenError, isGatewayError, isIdempotencyError } from "./errors.js";
import { createApi } from "./api.js";
import { createPassthrough } from "./passthrough.js";
import { createFetchJSON, createQueryFn, createRetry, createRetryDelay } from "./query.js";
import { type QueryClientConnection, type QueryClientLike, connectQueryClient as connect } from "./tanstack.js";
import type { GatewayCircuit } from "./types.js";

export type * from "./types.js";
export type { Outage, QueryClientConnection, QueryClientLike, QueryLike } from "./tanstack.js";
export { isCircuitOpenError, isGatewayError, isIdempotencyError };
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

const live = getGatewayCircuit;
const blocking = () => live().blocking();

const fetchJSON = createFetchJSON((input, init) => live().fetch(input, init));

/**
 * window.gatewayCircuit, looked up at each call. Methods can be passed around
 * unbound. Its TanStack helpers are built here over live().fetch, not handed
 * over: the same errors (GatewayHttpError) and the same retry rule whichever
 * instance answers — the facade, the tag's stand-in before it, or the
 * pass-through when the tag never ran. (They are set over the API object's
 * own, not passed into it, to keep the tag's file small.)
 */
export const gatewayCircuit: GatewayCircuit = Object.assign(createApi(live), {
  fetchJSON,
  queryFn: createQueryFn(fetchJSON),
  retry: createRetry(3, {
    blocking,
    get status() {
      return live().status;
    },
  }),
  retryDelay: createRetryDelay(blocking),
});

/**
 * Connects a TanStack QueryClient to the circuit: the queries that failed
 * because of the gateway are fetched again when it closes or turns half-open
 * (one first, the rest once it succeeded), and `outage()` / `subscribe()`
 * tell the overlay whether the gateway is down (see tanstack.ts).
 */
export function connectQueryClient(client: QueryClientLike): QueryClientConnection {
  return connect(client, gatewayCircuit);
}
