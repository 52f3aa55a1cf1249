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
}

/** The data-* attributes of the script tag (a DOMStringMap). */
export type DataAttributes = Partial<Record<"wasm" | "scope" | "ttlMs" | "maxTtlMs" | "tripStatuses", string>>;

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

  return { options: { wasmUrl, scope: scope.prefixes, ttlMs, maxTtlMs, tripStatuses }, problems };
}

/** The policy as wasm/ reads it (circuit.ParseConfig). */
export function configText(o: ResolvedOptions): string {
  return [
    `ttlMs=${o.ttlMs}`,
    `maxTtlMs=${o.maxTtlMs}`,
    `tripStatuses=${o.tripStatuses.join(",")}`,
    ...o.scope.map((s) => `scope=${s}`),
  ].join("\n");
}
