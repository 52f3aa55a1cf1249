// The overlay's state, outside React (read with useSyncExternalStore). Two
// writers: the circuit's subscription (arm, clear, expiry, restore after a
// reload) and TanStack's global QueryCache onError. Both may report the same
// circuit many times (every window-focus refetch fails again), so show() is
// idempotent. The state is mirrored on <html data-gateway-circuit>, the
// attribute the inline marker script sets before first paint and portal.css
// reads: one switch for the overlay's visibility, before and after hydration.

import { type CircuitState, gatewayCircuit, isGatewayError } from "@gatewaycircuit/browser";
import { ARMED_ATTRIBUTE } from "@gatewaycircuit/browser/head";

let state: CircuitState | null = null;
const listeners = new Set<() => void>();

function set(next: CircuitState | null) {
  if (next === state || (next && state && next.until === state.until && next.httpStatus === state.httpStatus)) return;
  state = next;
  if (next) document.documentElement.setAttribute(ARMED_ATTRIBUTE, "armed");
  else document.documentElement.removeAttribute(ARMED_ATTRIBUTE);
  for (const l of listeners) l();
}

export const overlay = {
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  },
  get: () => state,
  /** Nothing is armed on the server: the first frame comes from the marker script. */
  getServer: () => null,
  show: (s: CircuitState) => set(s),
  hide: () => set(null),
};

/** QueryCache onError: a gateway error while the circuit is armed shows the overlay. */
export function overlayFromError(error: unknown) {
  if (!isGatewayError(error)) return;
  // The circuit decides (a 502 arms it before the caller sees the response);
  // a 500 or a 404 is the app's own error and gets no overlay.
  const armed = gatewayCircuit.read();
  if (armed) overlay.show(armed);
}
