// The pre-ready gate: the only policy the JS side holds. From the first line
// of the script until the wasm runs (and for good if it cannot), it honours
// what is stored: an armed circuit answers in-scope requests with the
// synthetic 503, and so does a 429 pause of the request's service. It reads
// the formats Go writes, with the same rules (storage.ts runs the shared
// vectors; the service is the longest matching scope entry, as in
// policy/cooldown.Service).

import type { CircuitTimes, EarlyRule } from "./config.js";
import { inScope } from "./scope.js";
import { readPausesFrame, writePausesFrame } from "./abi.gen.js";
import { COOLDOWN_KEY } from "./policy.gen.js";
import {
  type CircuitState,
  type Pause,
  type StorageLike,
  type StoredCircuit,
  readPauses,
  readRaw,
  restorePhase,
  toStored,
  writeRaw,
} from "./storage.js";
import type { Blocking } from "./types.js";

type GateAnswer =
  | { kind: "pass" } // out of scope
  | { kind: "send" } // in scope, nothing stored blocks it
  | { kind: "hold" } // half-open: Go picks the one probe once it runs
  | { kind: "open" | "cooldown"; state: CircuitState }; // cooldown: its service's pause, as a 429 until the pause ends

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

/** What is stored, as read at one moment (readStored). */
export interface Stored {
  /** The circuit while open or half-open (the state before Go runs); null when closed. */
  stored: StoredCircuit | null;
  pauses: Pause[];
}

/**
 * What is stored at `now`, read as Go reads it (the circuit clamped, half-open, the pauses). An entry Go would
 * remove is removed, and a deadline beyond the maximum TTL written back clamped, as Go writes it, so that two
 * reads agree.
 */
export function readStored(storage: StorageLike | null, now: number, maxTtlMs: number): Stored {
  const r = restorePhase(readRaw(storage), now, maxTtlMs);
  if (r.action === "remove" || r.action === "rewrite") writeRaw(storage, r.stored && toStored(r.stored));
  return { stored: r.stored, pauses: readPauses(readRaw(storage, COOLDOWN_KEY), now) };
}

/**
 * What blocks requests at `now`, in what was read, the circuit's state being `state`: armed until its
 * `until`, then half-open while the outage is remembered.
 */
export function blockingAt(s: Stored, now: number, state: CircuitState | null = s.stored): Blocking {
  const circuit = state && now < state.until ? { until: state.until, httpStatus: state.httpStatus } : null;
  return { circuit, halfOpen: !circuit && now < (s.stored?.halfOpenUntil ?? 0), pauses: s.pauses.filter((p) => now < p.until) };
}

/** The decision for a request to `url` when `b` blocks: a pause of its service, else the open circuit. */
export function decide(url: string, scope: readonly string[], b: Blocking): GateAnswer {
  if (!inScope(url, scope)) return { kind: "pass" };
  // Go's order (internal/guard Begin): its service's pause first, then the circuit.
  const service = serviceOf(url, scope);
  const p = b.pauses.find((p) => p.service === service);
  if (p) return { kind: "cooldown", state: { until: p.until, httpStatus: 429 } };
  if (b.circuit) return { kind: "open", state: b.circuit };
  return b.halfOpen ? { kind: "hold" } : { kind: "send" };
}

export class Gate implements Stored {
  stored: StoredCircuit | null = null;
  pauses: Pause[] = [];
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
  load(now: number): void {
    Object.assign(this, readStored(this.storage, now, this.maxTtlMs));
  }

  /** Stores the circuit Go's Arm would store (armed()), or clears it (null). */
  write(s: StoredCircuit | null): void {
    writeRaw(this.storage, s && toStored(s));
    this.provisional = null;
    this.stored = s;
  }

  /**
   * The user's "try again" before Go runs (cooldown.ClearChosen): the pauses the module chose end, in storage too,
   * so that neither Go (it reads storage as it starts) nor the next load brings them back; those the server asked
   * for (an Asked line) stay.
   */
  clearChosen(): void {
    const lines = readPausesFrame(readRaw(this.storage, COOLDOWN_KEY) ?? "");
    const asked = new Set(lines.flatMap((l) => ("asked" in l ? [l.asked.service] : [])));
    const kept = lines.filter((l) => asked.has("asked" in l ? l.asked.service : l.pause.service));
    if (kept.length < lines.length) writeRaw(this.storage, writePausesFrame(kept), COOLDOWN_KEY);
    this.pauses = this.pauses.filter((p) => p.serverAsked);
  }

  /**
   * The early rule (config.ts EarlyRule) on an answer that came before Go
   * runs: an in-scope read's trip status arms at once, when Go's rule arms on
   * one failure and the circuit is not armed already (a mutation's failure
   * arms nothing by itself, as in Go). Returns whether it armed.
   */
  armEarly(rule: EarlyRule, method: string, url: string, status: number, now: number): boolean {
    if (rule.tripMinFailures !== 1 || !rule.tripStatuses.includes(status) || !inScope(url, this.scope)) return false;
    if (method !== "GET" && method !== "HEAD") return false;
    if (this.stored && now < this.stored.until) return false; // a straggler of the burst that armed it
    this.write(armed(rule, now, status));
    this.provisional = readRaw(this.storage);
    return true;
  }
}
