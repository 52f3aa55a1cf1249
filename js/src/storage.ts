// The stored circuit: the one reading rule shared with the Go core
// (internal/circuit/Restore). Both readers run internal/circuit/testdata/payload_vectors.json.

/** The sessionStorage key. Existing apps already write it; it must not change. */
export const STORAGE_KEY = "gateway_circuit_v1";

/** Longer payloads (in UTF-16 code units) are malformed; a real one is ~40. */
export const MAX_PAYLOAD_LEN = 1024;

/** The circuit as stored: armed while `Date.now() < until`. */
export interface CircuitState {
  /** Unix epoch milliseconds. */
  readonly until: number;
  /** The gateway failure that armed the circuit (e.g. 502). */
  readonly httpStatus: number;
}

export type RestoreAction = "none" | "keep" | "remove" | "rewrite";

/** The part of the Web Storage API the module uses. */
export interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** Reads `{"until":<ms>,"httpStatus":<int>}`; anything else is `null`. */
export function parsePayload(raw: string): CircuitState | null {
  if (raw.length > MAX_PAYLOAD_LEN) return null;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  const until = hasOwn(o, "until") ? o.until : undefined;
  const httpStatus = hasOwn(o, "httpStatus") ? o.httpStatus : undefined;
  if (typeof until !== "number" || !Number.isInteger(until)) return null;
  if (typeof httpStatus !== "number" || !isHttpStatus(httpStatus)) return null;
  return { until, httpStatus };
}

export function isHttpStatus(n: unknown): n is number {
  return typeof n === "number" && Number.isInteger(n) && n >= 100 && n <= 599;
}

export function toPayload(s: CircuitState): string {
  return `{"until":${s.until},"httpStatus":${s.httpStatus}}`;
}

/**
 * Interprets a stored entry at `now`: malformed or expired entries are closed
 * and must be removed; an `until` beyond `now + maxTtlMs` is clamped and must
 * be written back, so a poisoned entry cannot lock a tab out for days.
 */
export function restore(
  raw: string | null,
  now: number,
  maxTtlMs: number,
): { state: CircuitState | null; action: RestoreAction } {
  if (raw === null) return { state: null, action: "none" };
  const s = parsePayload(raw);
  if (s === null || !(now < s.until)) return { state: null, action: "remove" };
  if (s.until > now + maxTtlMs) {
    return { state: { until: now + maxTtlMs, httpStatus: s.httpStatus }, action: "rewrite" };
  }
  return { state: s, action: "keep" };
}

/**
 * `globalThis.sessionStorage`, or null when it cannot be used. Reading the
 * property itself throws SecurityError in a sandboxed iframe.
 */
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

export function writeRaw(s: StorageLike | null, value: string | null): boolean {
  if (!s) return false;
  try {
    if (value === null) s.removeItem(STORAGE_KEY);
    else s.setItem(STORAGE_KEY, value);
    return true;
  } catch {
    return false;
  }
}

/** Where Go keeps the 429 pauses (internal/cooldown): "untilMs strikes service" lines. */
export const COOLDOWN_KEY = "gateway_cooldown_v1";

/** A service paused until `until` (the longest scope entry it matched, or an origin). */
export interface Pause {
  readonly until: number;
  readonly service: string;
}

/**
 * The pauses in force at `now`, for the pre-ready gate (Go reads the same
 * lines with cooldown.Restore). Unreadable lines are skipped; a pause further
 * than `maxPauseMs` away is clamped, like the circuit's deadline.
 */
export function readPauses(raw: string | null, now: number, maxPauseMs = 1_800_000): Pause[] {
  const pauses: Pause[] = [];
  for (const line of (raw ?? "").split("\n")) {
    const m = /^(-?\d+) (\d+) (.+)$/.exec(line);
    if (!m) continue;
    const until = Math.min(Number(m[1]), now + maxPauseMs);
    if (now < until) pauses.push({ until, service: m[3]! });
  }
  return pauses;
}
