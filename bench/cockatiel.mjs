// The best-known JS peer for the per-call table: a cockatiel circuit breaker
// around fetch, as a team would set it up (opens on one 502/503/504, probes
// after 30 s). Bundled by esbuild into build/bench/cockatiel.js. Not shipped.

import { ConsecutiveBreaker, circuitBreaker, handleWhenResult } from "cockatiel";

const TRIP = [502, 503, 504];
const breaker = circuitBreaker(handleWhenResult((res) => TRIP.includes(res.status)), {
  halfOpenAfter: 30_000,
  breaker: new ConsecutiveBreaker(1),
});
let isolation = null;

window.cockatielCircuit = {
  /** fetch through the breaker; an open breaker rejects with BrokenCircuitError/IsolatedCircuitError. */
  fetch: (input, init) => breaker.execute(() => fetch(input, init)),
  /** Holds the breaker open until clear(), like arm() on the others. */
  arm() {
    isolation ??= breaker.isolate();
  },
  clear() {
    isolation?.dispose();
    isolation = null;
  },
};
