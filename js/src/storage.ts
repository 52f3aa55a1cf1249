// What Go stores, read by its rules, on the same vectors: the circuit as
// internal/circuit.Restore reads it, the 429 pauses as policy/cooldown.Restore
// does (internal/{circuit,cooldown}/testdata). The keys and the limits are
// Go's (policy.gen.ts).

import { readPausesFrame } from "./abi.gen.js";
import {
  MAX_PAUSE_MS,
  MAX_PAYLOAD_LEN,
  MAX_STORED_STRIKES,
  MAX_STRIKES,
  STORAGE_KEY,
  TRIP_STATUSES,
} from "./policy.gen.js";

/** The circuit as stored: armed while `Date.now() < until`. */
export interface CircuitState {
  /** Unix epoch milliseconds. */
  readonly until: number;
  /** The gateway failure that armed the circuit (e.g. 502). */
  readonly httpStatus: number;
}

export type RestoreAction = "none" | "keep" | "remove" | "rewrite";

/** closed; open (until > now); halfOpen: the TTL is over but the outage is remembered (one probe decides). */
export type Phase = "closed" | "open" | "halfOpen";

/** The stored circuit with its optional fields (Go writes them; the seed's format has neither). */
export interface StoredCircuit extends CircuitState {
  /** Failed probes in a row (0-16): the next TTL is the base TTL × 2^strikes. */
  readonly strikes: number;
  /** Until when, after `until`, the outage is remembered (0: not at all). */
  readonly halfOpenUntil: number;
}

/** The part of the Web Storage API the module uses. */
export interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** The stored entry as an object, or null when it is too long or not a JSON object. */
function parseEntry(raw: string): Record<string, unknown> | null {
  if (raw.length > MAX_PAYLOAD_LEN) return null;
  try {
    const v: unknown = JSON.parse(raw);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** An own field of the entry that is a whole number, or null (absent, or anything else). */
function intField(o: Record<string, unknown>, k: string): number | null {
  const v = Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined;
  return Number.isInteger(v) ? (v as number) : null;
}

export function isHttpStatus(n: unknown): n is number {
  const k = TRIP_STATUSES.kind;
  return Number.isInteger(n) && (n as number) >= k.min && (n as number) <= k.max;
}

/**
 * Interprets a stored entry at `now`: malformed or closed entries must be removed; an `until` beyond
 * `now + maxTtlMs` is clamped, and `halfOpenUntil` to at most `until + maxTtlMs`, and the entry must then be
 * written back, so a poisoned entry cannot lock a tab out for days. Optional fields that are not integers are
 * absent; they never close an open circuit.
 */
export function restorePhase(
  raw: string | null,
  now: number,
  maxTtlMs: number,
): { phase: Phase; stored: StoredCircuit | null; action: RestoreAction } {
  if (raw === null) return { phase: "closed", stored: null, action: "none" };
  const o = parseEntry(raw) ?? {};
  const until = intField(o, "until");
  const httpStatus = intField(o, "httpStatus");
  if (until === null || !isHttpStatus(httpStatus)) return { phase: "closed", stored: null, action: "remove" };
  const strikes = Math.max(0, intField(o, "strikes") ?? 0);
  const halfOpenUntil = intField(o, "halfOpenUntil") ?? 0;
  const clamped = Math.min(until, now + maxTtlMs);
  const stored = {
    until: clamped,
    httpStatus,
    strikes: Math.min(strikes, MAX_STRIKES),
    halfOpenUntil: Math.min(halfOpenUntil, clamped + maxTtlMs),
  };
  if (now >= clamped && now >= stored.halfOpenUntil) return { phase: "closed", stored: null, action: "remove" };
  const phase: Phase = now < clamped ? "open" : "halfOpen";
  const changed = clamped !== until || stored.strikes !== strikes || stored.halfOpenUntil !== halfOpenUntil;
  return { phase, stored, action: changed ? "rewrite" : "keep" };
}

/** The stored format, with the optional fields only when set. */
export function toStored(s: CircuitState & Partial<StoredCircuit>): string {
  let out = `{"until":${s.until},"httpStatus":${s.httpStatus}`;
  if (s.strikes) out += `,"strikes":${s.strikes}`;
  if (s.halfOpenUntil) out += `,"halfOpenUntil":${s.halfOpenUntil}`;
  return out + "}";
}

/** `globalThis.sessionStorage`, or null when it cannot be used (reading it throws SecurityError in a sandboxed iframe). */
export function sessionStorageOf(g: object): StorageLike | null {
  try {
    const s = Reflect.get(g, "sessionStorage") as StorageLike | null | undefined;
    return s && typeof s.getItem === "function" ? s : null;
  } catch {
    return null;
  }
}

/** Storage failures never throw past here: they mean "closed, keep working". */
export function readRaw(s: StorageLike | null, key = STORAGE_KEY): string | null {
  if (!s) return null;
  try {
    const v = s.getItem(key);
    return typeof v === "string" ? v : null;
  } catch {
    return null;
  }
}

export function writeRaw(s: StorageLike | null, value: string | null, key = STORAGE_KEY): void {
  try {
    if (value === null) s?.removeItem(key);
    else s?.setItem(key, value);
  } catch {
    // full or blocked: keep working, as readRaw does
  }
}

/** A service paused after a 429 until `until` (the longest scope entry it matched). */
export interface Pause {
  /** The scope entry paused. */
  readonly service: string;
  /** Unix epoch milliseconds. */
  readonly until: number;
  /** The server asked for it with Retry-After: clear() keeps it. Else the module chose it, and clear() ends it. */
  readonly serverAsked: boolean;
}

/**
 * The pauses in force at `now`, from the Pauses frame under COOLDOWN_KEY: a pause with more strikes than Go stores,
 * or no service, is skipped; a later pause of a service replaces an earlier one, and an Asked line marks the pause
 * before it; one further than MAX_PAUSE_MS away is clamped, like the circuit's deadline.
 */
export function readPauses(raw: string | null, now: number): Pause[] {
  const byService = new Map<string, Pause>();
  for (const l of readPausesFrame(raw ?? "")) {
    if ("asked" in l) {
      const p = byService.get(l.asked.service);
      if (p) byService.set(p.service, { ...p, serverAsked: true });
      continue;
    }
    const { untilMs, strikes, service } = l.pause;
    if (strikes < 0 || strikes > MAX_STORED_STRIKES || service === "") continue;
    const p = { service, until: Math.min(untilMs, now + MAX_PAUSE_MS), serverAsked: false };
    if (now >= p.until + MAX_PAUSE_MS) continue; // long forgotten
    byService.delete(service);
    byService.set(service, p);
  }
  return [...byService.values()].filter((p) => now < p.until);
}
