// data-* attributes → options. Bad values get a clear message naming the
// attribute and fall back to the default; they never stop the page.

import { resolveScope } from "./scope.js";
import { isHttpStatus } from "./storage.js";

export const DEFAULT_TTL_MS = 120_000;
export const DEFAULT_MAX_TTL_MS = 600_000;
export const DEFAULT_TRIP_STATUSES: readonly number[] = [502, 503, 504];

export interface ResolvedOptions {
  /** Where the wasm is, or null to run the JS gate only. */
  wasmUrl: string | null;
  /** Absolute URL prefixes the circuit guards. */
  scope: string[];
  ttlMs: number;
  maxTtlMs: number;
  tripStatuses: number[];
  /** Serve the last good copy of a GET when the gateway fails. Opt-in. */
  stale: boolean;
  /** How old a stale copy may be (a server's stale-if-error overrides). */
  staleMaxMs: number;
  /** Share identical in-flight GETs. */
  coalesce: boolean;
  /** Remember failed GETs for a while. */
  negativeCache: boolean;
  /** Pause a service after a 429. */
  cooldown: boolean;
  /** One half-open probe when the circuit's time is up. */
  probe: boolean;
  /** Idempotency keys on in-scope POST/PUT/PATCH/DELETE. */
  idempotency: boolean;
  /** Cache GETs that keep answering empty for longer (60 s after 3, 120 s after 5). Opt-in. */
  emptyTtl: boolean;
}

/** The data-* attributes of the script tag (a DOMStringMap). */
export type DataAttributes = Partial<
  Record<
    | "wasm"
    | "scope"
    | "ttlMs"
    | "maxTtlMs"
    | "tripStatuses"
    | "stale"
    | "staleMaxMs"
    | "coalesce"
    | "negativeCache"
    | "cooldown"
    | "probe"
    | "idempotency"
    | "emptyTtl",
    string
  >
>;

export const DEFAULT_STALE_MAX_MS = 3_600_000;

export function readOptions(
  data: DataAttributes,
  base: string,
  scriptSrc?: string,
): { options: ResolvedOptions; problems: string[] } {
  const problems: string[] = [];
  const positive = (attr: string, value: string | undefined, fallback: number) => {
    if (value === undefined || value.trim() === "") return fallback;
    const n = Number(value);
    if (Number.isSafeInteger(n) && n > 0) return n;
    problems.push(`${attr}: ${JSON.stringify(value)} is not a positive whole number of milliseconds; using ${fallback}`);
    return fallback;
  };
  const maxTtlMs = positive("data-max-ttl-ms", data.maxTtlMs, DEFAULT_MAX_TTL_MS);
  let ttlMs = positive("data-ttl-ms", data.ttlMs, Math.min(DEFAULT_TTL_MS, maxTtlMs));
  if (ttlMs > maxTtlMs) {
    problems.push(`data-ttl-ms: ${ttlMs} exceeds data-max-ttl-ms ${maxTtlMs}; using ${maxTtlMs}`);
    ttlMs = maxTtlMs;
  }

  let tripStatuses = [...DEFAULT_TRIP_STATUSES];
  if (data.tripStatuses !== undefined) {
    const parts = data.tripStatuses.split(",").map((p) => p.trim()).filter((p) => p !== "");
    const parsed = parts.map(Number);
    const bad = parts.filter((_, i) => !isHttpStatus(parsed[i]));
    if (bad.length > 0) problems.push(`data-trip-statuses: ${JSON.stringify(bad.join(","))} are not HTTP statuses; using ${tripStatuses.join(",")}`);
    else tripStatuses = parsed;
  }

  const flag = (attr: string, value: string | undefined, fallback: boolean) => {
    if (value === undefined || value.trim() === "") return fallback;
    const v = value.trim().toLowerCase();
    if (v === "on" || v === "true") return true;
    if (v === "off" || v === "false") return false;
    problems.push(`${attr}: ${JSON.stringify(value)} is not on or off; using ${fallback ? "on" : "off"}`);
    return fallback;
  };
  const stale = flag("data-stale", data.stale, false);
  const staleMaxMs = positive("data-stale-max-ms", data.staleMaxMs, DEFAULT_STALE_MAX_MS);
  const coalesce = flag("data-coalesce", data.coalesce, true);
  const negativeCache = flag("data-negative-cache", data.negativeCache, true);
  const cooldown = flag("data-cooldown", data.cooldown, true);
  const probe = flag("data-probe", data.probe, true);
  const idempotency = flag("data-idempotency", data.idempotency, true);
  const emptyTtl = flag("data-empty-ttl", data.emptyTtl, false);

  const scope = resolveScope(data.scope, base);
  problems.push(...scope.problems);

  let wasmUrl: string | null = null;
  const wasm = data.wasm ?? (scriptSrc ? scriptSrc.replace(/\.js(?=$|[?#])/, ".wasm") : undefined);
  if (wasm) {
    try {
      wasmUrl = new URL(wasm, base).href;
    } catch {
      problems.push(`data-wasm: ${JSON.stringify(wasm)} is not a URL; running without the wasm`);
    }
  } else {
    problems.push("data-wasm is missing; running without the wasm");
  }

  return {
    options: {
      wasmUrl,
      scope: scope.prefixes,
      ttlMs,
      maxTtlMs,
      tripStatuses,
      stale,
      staleMaxMs,
      coalesce,
      negativeCache,
      cooldown,
      probe,
      idempotency,
      emptyTtl,
    },
    problems,
  };
}

/** The policy as wasm/ reads it (guard.ParseConfig). */
export function configText(o: ResolvedOptions): string {
  const onOff = (b: boolean) => (b ? "on" : "off");
  return [
    `ttlMs=${o.ttlMs}`,
    `maxTtlMs=${o.maxTtlMs}`,
    `tripStatuses=${o.tripStatuses.join(",")}`,
    ...o.scope.map((s) => `scope=${s}`),
    `stale=${onOff(o.stale)}`,
    `staleMaxMs=${o.staleMaxMs}`,
    `coalesce=${onOff(o.coalesce)}`,
    `negativeCache=${onOff(o.negativeCache)}`,
    `cooldown=${onOff(o.cooldown)}`,
    `probe=${onOff(o.probe)}`,
    `idempotency=${onOff(o.idempotency)}`,
    `emptyTtl=${onOff(o.emptyTtl)}`,
  ].join("\n");
}
