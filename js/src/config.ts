// data-* attributes → options. Go owns the configuration
// (internal/guard.ParseAttributes): it gets the attributes raw, applies the
// defaults, validates, warns about each bad value and says which options are
// in force. Until the wasm runs, the gate needs a few of them at once; this
// reader follows the same rules, checked by the same vectors
// (internal/guard/testdata/attribute_vectors.json), and stays silent about
// bad values: Go names them. What only JS can do is JS's: resolving data-scope
// and data-wasm against the page (the URL parser), and warning about those.

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
    | "emptyTtl"
    | "load",
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
  const positive = (value: string | undefined, fallback: number) => {
    const v = value?.trim() ?? "";
    if (!/^\d+$/.test(v)) return fallback;
    const n = Number(v);
    return n > 0 && n <= 2 ** 53 ? n : fallback;
  };
  const maxTtlMs = positive(data.maxTtlMs, DEFAULT_MAX_TTL_MS);
  const ttlMs = Math.min(positive(data.ttlMs, DEFAULT_TTL_MS), maxTtlMs);

  let tripStatuses = [...DEFAULT_TRIP_STATUSES];
  if (data.tripStatuses !== undefined && data.tripStatuses.trim() !== "") {
    const parts = data.tripStatuses.split(",").map((p) => p.trim()).filter((p) => p !== "");
    const parsed = parts.map((p) => (/^\d+$/.test(p) ? Number(p) : NaN));
    if (parsed.every(isHttpStatus)) tripStatuses = parsed;
  }

  const flag = (value: string | undefined, fallback: boolean) => {
    const v = value?.trim().toLowerCase() ?? "";
    if (v === "on" || v === "true") return true;
    if (v === "off" || v === "false") return false;
    return fallback;
  };
  const stale = flag(data.stale, false);
  const staleMaxMs = positive(data.staleMaxMs, DEFAULT_STALE_MAX_MS);
  const coalesce = flag(data.coalesce, true);
  const negativeCache = flag(data.negativeCache, true);
  const cooldown = flag(data.cooldown, true);
  const probe = flag(data.probe, true);
  const idempotency = flag(data.idempotency, true);
  const emptyTtl = flag(data.emptyTtl, false);

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

/**
 * The Config frame for Go: the attributes as given (one line each, newlines
 * flattened), with data-scope replaced by its resolved prefixes.
 */
export function attributesText(data: DataAttributes, o: ResolvedOptions, pageOrigin = ""): string {
  let text = "";
  for (const [k, v] of Object.entries(data)) {
    if (k === "scope" || k === "wasm" || typeof v !== "string") continue;
    text += `${k}=${v.replace(/[\r\n]/g, " ")}\n`;
  }
  for (const s of o.scope) text += `scope=${s}\n`;
  if (pageOrigin) text += `pageOrigin=${pageOrigin}\n`;
  return text;
}

/** Go's Options frame ("name=value" lines, "!warning" lines) over the JS view. */
export function readGoOptions(frame: string, o: ResolvedOptions): { options: ResolvedOptions; warnings: string[] } {
  const warnings: string[] = [];
  const v: Record<string, string> = {};
  for (const line of frame.split("\n")) {
    if (line.startsWith("!")) warnings.push(line.slice(1));
    else if (line.includes("=") && !line.startsWith("scope=")) {
      const i = line.indexOf("=");
      v[line.slice(0, i)] = line.slice(i + 1);
    }
  }
  const num = (k: string, d: number) => (v[k] ? Number(v[k]) : d);
  const on = (k: string, d: boolean) => (v[k] ? v[k] === "on" : d);
  return {
    options: {
      ...o,
      ttlMs: num("ttlMs", o.ttlMs),
      maxTtlMs: num("maxTtlMs", o.maxTtlMs),
      tripStatuses: v.tripStatuses ? v.tripStatuses.split(",").map(Number) : o.tripStatuses,
      stale: on("stale", o.stale),
      staleMaxMs: num("staleMaxMs", o.staleMaxMs),
      coalesce: on("coalesce", o.coalesce),
      negativeCache: v.negativeCache ? v.negativeCache !== "off" : o.negativeCache,
      cooldown: on("cooldown", o.cooldown),
      probe: on("probe", o.probe),
      idempotency: v.idempotency ? v.idempotency !== "off" : o.idempotency,
      emptyTtl: on("emptyTtl", o.emptyTtl),
    },
    warnings,
  };
}
