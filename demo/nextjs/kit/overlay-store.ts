// The overlay's state, outside React (read with useSyncExternalStore). Two
// writers: the circuit's subscription (arm, clear, expiry, restore after a
// reload) and TanStack's global QueryCache onError. Both may report the same
// outage many times (every window-focus refetch fails again), so show() is
// idempotent. The state is mirrored on <html data-gateway-circuit>, the
// attribute the inline marker script sets before first paint and portal.css
// reads: one switch for the overlay's visibility, before and after hydration.

import { gatewayCircuit, isOutageError } from "@gatewaycircuit/browser";
import { ARMED_ATTRIBUTE } from "@gatewaycircuit/browser/head";

/** What the overlay says: the gateway's status, and until when (null: not known). */
export interface Shown {
  httpStatus: number;
  until: number | null;
}

let state: Shown | null = null;
const listeners = new Set<() => void>();

function set(next: Shown | null) {
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
  show: (s: Shown) => set(s),
  hide: () => set(null),
};

/**
 * QueryCache onError: the gateway is down when the circuit is armed, and
 * also on a plain 502/503/504 — so the overlay still shows when the module's
 * files did not load or it runs in fallback. A 500 or a 404 is the app's own
 * error and gets no overlay.
 */
export function overlayFromError(error: unknown) {
  const armed = gatewayCircuit.read();
  if (armed) overlay.show(armed);
  else if (isOutageError(error)) overlay.show({ httpStatus: error.httpStatus, until: null });
}
