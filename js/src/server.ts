// The server-safe entry (`react-server`, `node`, `default`): importing it in a
// Server Component, during `next build`, in SSR of a client component, or in
// Node never touches `window`. It exports what the browser entry does, so
// code shared with the browser renders the same.

import { createPassthrough } from "./passthrough.js";
import { type QueryClientConnection, type QueryClientLike, connectQueryClient as connect } from "./tanstack.js";
import type { GatewayCircuit } from "./types.js";

export * from "./index.js"; // the three below are the server's own

/** On a server: a pass-through with status "fallback" that guards nothing. */
export const gatewayCircuit: GatewayCircuit = createPassthrough(
  new Error("gatewaycircuit: no circuit on the server (it lives in the browser tab's sessionStorage)"),
);

/** The same object; the browser entry returns the script tag's instance. */
export function getGatewayCircuit(): GatewayCircuit {
  return gatewayCircuit;
}

/** On a server nothing is ever armed: the connection only reports the failed queries' errors. */
export function connectQueryClient(client: QueryClientLike): QueryClientConnection {
  return connect(client, gatewayCircuit);
}
