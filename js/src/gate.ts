// The pre-ready gate: the only policy the JS side holds. From the first line
// of the script until the wasm runs (and for good if it cannot), it honours
// what is stored: an armed circuit answers in-scope requests with the
// synthetic 503, and so does a 429 pause of the request's service. It reads
// the formats Go writes, with the same rules (storage.ts runs the shared
// vectors; the service is the longest matching scope entry, as in
// internal/cooldown.Service).

import { inScope } from "./scope.js";
import {
  COOLDOWN_KEY,
  type CircuitState,
  type Pause,
  type Phase,
  type StorageLike,
  readPauses,
  readRaw,
  restorePhase,
  toStored,
  writeRaw,
} from "./storage.js";

export type GateAnswer =
  | { kind: "pass" } // out of scope
  | { kind: "send" } // in scope, nothing stored blocks it
  | { kind: "hold" } // half-open: Go picks the one probe once it runs
  | { kind: "open"; state: CircuitState }
  | { kind: "cooldown"; until: number };

/** The service of an in-scope URL: the longest scope entry it starts with. */
export function serviceOf(url: string, scope: readonly string[]): string {
  let best = "";
  for (const s of scope) if (s.length > best.length && url.startsWith(s)) best = s;
  return best;
}

export class Gate {
  /** The 429 pauses as last read from storage. */
  pauses: Pause[] = [];
  /** The circuit as last read from storage, when armed (the state before Go runs). */
  stored: CircuitState | null = null;
  /** The stored circuit's phase when it was read. */
  phase: Phase = "closed";
  private halfOpenUntil = 0;

  constructor(
    private readonly storage: StorageLike | null,
    private readonly scope: readonly string[],
    private readonly maxTtlMs: number,
    now: number,
  ) {
    this.load(now);
  }

  /** Reads the circuit and the pauses from storage (at start, when the page is restored from the back/forward cache, when another instance of the tab changed them). */
  load(now: number): CircuitState | null {
    this.pauses = readPauses(readRaw(this.storage, COOLDOWN_KEY), now);
    const r = restorePhase(readRaw(this.storage), now, this.maxTtlMs);
    if (r.action === "remove") writeRaw(this.storage, null);
    if (r.action === "rewrite" && r.stored) writeRaw(this.storage, toStored(r.stored));
    this.phase = r.phase;
    this.halfOpenUntil = r.stored?.halfOpenUntil ?? 0;
    this.stored = r.phase === "open" && r.stored ? { until: r.stored.until, httpStatus: r.stored.httpStatus } : null;
    return this.stored;
  }

  /** Half-open at `now`: the TTL is over, the outage is remembered. */
  halfOpen(state: CircuitState | null, now: number): boolean {
    return this.phase !== "closed" && !(state && now < state.until) && now < this.halfOpenUntil;
  }

  /** The user's retry without Go: the pauses the module chose end (in this page). */
  clearChosen(): void {
    this.pauses = this.pauses.filter((p) => p.serverAsked);
    this.phase = "closed";
  }

  /** The pauses in force at now. */
  pausesAt(now: number): Pause[] {
    return this.pauses.filter((p) => now < p.until);
  }

  /** The decision for a request to `url`, given the circuit's state at `now`. */
  decide(url: string, state: CircuitState | null, now: number): GateAnswer {
    if (!inScope(url, this.scope)) return { kind: "pass" };
    if (state && now < state.until) return { kind: "open", state };
    if (this.pauses.length > 0) {
      const service = serviceOf(url, this.scope);
      for (const p of this.pauses) if (p.service === service && now < p.until) return { kind: "cooldown", until: p.until };
    }
    return this.halfOpen(state, now) ? { kind: "hold" } : { kind: "send" };
  }
}
