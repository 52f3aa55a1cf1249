// The pre-ready gate: the only policy the JS side holds. From the first line
// of the script until the wasm runs (and for good if it cannot), it honours
// what is stored: an armed circuit answers in-scope requests with the
// synthetic 503, and so does a 429 pause of the request's service. It reads
// the formats Go writes, with the same rules (storage.ts runs the shared
// vectors; the service is the longest matching scope entry, as in
// internal/cooldown.Service).

import type { CircuitTimes, EarlyRule } from "./config.js";
import { inScope } from "./scope.js";
import {
  COOLDOWN_KEY,
  type CircuitState,
  type Pause,
  type Phase,
  type StorageLike,
  type StoredCircuit,
  readPauses,
  readRaw,
  restorePhase,
  toStored,
  writeRaw,
} from "./storage.js";
import type { Blocking } from "./types.js";

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

/** The circuit Go's Arm stores at `now`: for the rule's TTL or `ttlMs`, capped, then half-open for the rule's time. */
export function armed(rule: CircuitTimes, now: number, httpStatus: number, ttlMs?: number): StoredCircuit {
  const until = now + Math.min(Math.floor(ttlMs ?? 0) || rule.ttlMs, rule.maxTtlMs);
  return { until, httpStatus, strikes: 0, halfOpenUntil: until + rule.halfOpenMs };
}

/**
 * What is stored and blocks at `now`, read as Go reads it (the circuit clamped, half-open, the pauses). A deadline
 * beyond the maximum TTL is written back clamped, as Go writes it, so that two reads agree.
 */
export function storedBlocking(storage: StorageLike | null, now: number, maxTtlMs: number): Blocking {
  const r = restorePhase(readRaw(storage), now, maxTtlMs);
  if (r.action === "rewrite" && r.stored) writeRaw(storage, toStored(r.stored));
  const circuit = r.phase === "open" ? { until: r.stored!.until, httpStatus: r.stored!.httpStatus } : null;
  return { circuit, halfOpen: r.phase === "halfOpen", pauses: readPauses(readRaw(storage, COOLDOWN_KEY), now) };
}

export class Gate {
  /** The 429 pauses as last read from storage. */
  pauses: Pause[] = [];
  /** The circuit as last read from storage, when armed (the state before Go runs). */
  stored: CircuitState | null = null;
  /** The stored circuit's phase when it was read. */
  phase: Phase = "closed";
  private halfOpenUntil = 0;
  /** What the early rule stored last (armEarly), for Go to judge again; null when it stored nothing. */
  provisional: string | null = null;

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

  /** Stores the circuit Go's Arm would store (armed()), or clears it (null). */
  write(s: StoredCircuit | null): CircuitState | null {
    writeRaw(this.storage, s && toStored(s));
    this.provisional = null;
    this.phase = s ? "open" : "closed";
    this.halfOpenUntil = s?.halfOpenUntil ?? 0;
    this.stored = s && { until: s.until, httpStatus: s.httpStatus };
    return this.stored;
  }

  /**
   * The early rule (config.ts EarlyRule) on an answer that came before Go
   * runs: an in-scope trip status arms at once, when Go's rule arms on one
   * failure and the circuit is not armed already. Returns whether it armed.
   */
  armEarly(rule: EarlyRule, url: string, status: number, now: number): boolean {
    if (rule.tripMinFailures !== 1 || !rule.tripStatuses.includes(status) || !inScope(url, this.scope)) return false;
    if (this.stored && now < this.stored.until) return false; // a straggler of the burst that armed it
    this.write(armed(rule, now, status));
    this.provisional = readRaw(this.storage);
    return true;
  }

  /** What blocks requests at `now`, as the gate holds it. */
  blocking(now: number): Blocking {
    const circuit = this.stored && now < this.stored.until ? { ...this.stored } : null;
    return { circuit, halfOpen: this.halfOpen(circuit, now), pauses: this.pausesAt(now) };
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
