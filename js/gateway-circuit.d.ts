// Types for the script-tag build (dist/gateway-circuit.js): window.gatewayCircuit.
import type { GatewayCircuit } from "./types/types.js";

export type * from "./types/types.js";

declare global {
  interface Window {
    gatewayCircuit: GatewayCircuit;
  }
  // eslint-disable-next-line no-var
  var gatewayCircuit: GatewayCircuit;
}
