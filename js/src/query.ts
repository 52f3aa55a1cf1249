// The TanStack Query helpers: a fetcher that throws GatewayHttpError for
// non-2xx answers, and the retry rule and delay that go with it.

import { isGatewayError } from "./brand.js";
import { GatewayHttpError } from "./errors.js";
import { serviceOf } from "./gate.js";
import type { BlockMarker } from "./responses.js";
import type { Pause } from "./storage.js";
import type { Blocking, GatewayCircuit, GatewayRequestInit } from "./types.js";

/**
 * Marks every answer the module made up: "open" (the circuit), "cooldown"
 * (a 429 pause), "negative" (the negative cache), "stale" (a stale copy),
 * "cached" (an empty answer reused), "idempotency" (a refused mutation).
 */
export const MARKER_HEADER = "x-gateway-circuit";

const SHORT_CIRCUITS = new Set(["open", "cooldown", "negative"]);

/** Builds the error for a non-2xx Response; reads the body of a synthetic 503. */
export async function toGatewayError(res: Response): Promise<GatewayHttpError> {
  const url = res.url || "(synthetic)";
  const marker = res.headers.get(MARKER_HEADER) ?? "";
  if (!SHORT_CIRCUITS.has(marker)) {
    const retryAfterMs = retryAfterOf(res.headers.get("retry-after"), Date.now());
    return new GatewayHttpError({ status: res.status, httpStatus: res.status, circuitOpen: false, until: null, url, retryAfterMs });
  }
  let httpStatus = res.status;
  let until: number | null = null;
  try {
    const body = (await res.json()) as { httpStatus?: unknown; until?: unknown };
    if (typeof body.httpStatus === "number") httpStatus = body.httpStatus;
    if (typeof body.until === "number") until = body.until;
  } catch {
    // a body we did not write: keep the response status
  }
  return new GatewayHttpError({ status: res.status, httpStatus, circuitOpen: true, until, url, reason: marker as BlockMarker });
}

const MONTHS = "JanFebMarAprMayJunJulAugSepOctNovDec";
const MON = "(?<mon>Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
const TIME = "(?<time>(?:[01]\\d|2[0-3])(?::[0-5]\\d){2})"; // no leap second, as net/http
/** The three forms of an HTTP-date (RFC 9110 §5.6.7): Sun, 06 Nov 1994 08:49:37 GMT; Sunday, 06-Nov-94 08:49:37 GMT; Sun Nov  6 08:49:37 1994. */
const HTTP_DATES = /* @__PURE__ */ [
  `(?:Sun|Mon|Tue|Wed|Thu|Fri|Sat), (?<d>\\d\\d) ${MON} (?<y>\\d{4}) ${TIME} GMT`,
  `(?:Sun|Mon|Tues|Wednes|Thurs|Fri|Satur)day, (?<d>\\d\\d)-${MON}-(?<y>\\d\\d) ${TIME} GMT`,
  `(?:Sun|Mon|Tue|Wed|Thu|Fri|Sat) ${MON} (?<d> \\d|\\d\\d) ${TIME} (?<y>\\d{4})`,
].map((form) => new RegExp(`^${form}$`));

/**
 * A Retry-After header in ms from `now`, read as Go's retryafter.Parse reads
 * it (both run policy/retryafter/testdata/vectors.json): delay-seconds or
 * an HTTP-date, never local time; null when absent or malformed.
 */
export function retryAfterOf(header: string | null, now: number): number | null {
  const v = (header ?? "").replace(/^[ \t]+|[ \t]+$/g, "");
  if (/^\d+$/.test(v)) return Math.min(Number(v) * 1000, Number.MAX_SAFE_INTEGER);
  const g = HTTP_DATES.map((form) => form.exec(v)?.groups).find(Boolean) as Record<"d" | "mon" | "y" | "time", string> | undefined;
  if (!g) return null;
  const date = new Date(0); // not Date.UTC, which reads the years 0-99 as 19xx; yy is 19yy from 69, as net/http reads it
  date.setUTCFullYear(Number(g.y) + (g.y.length > 2 ? 0 : Number(g.y) >= 69 ? 1900 : 2000), MONTHS.indexOf(g.mon) / 3, Number(g.d));
  if (date.getUTCDate() !== Number(g.d)) return null; // 31 Apr, 29 Feb 1900
  return Math.min(Math.max(0, date.getTime() + Date.parse(`1970-01-01T${g.time}Z`) - now), Number.MAX_SAFE_INTEGER);
}

export type FetchJSON = GatewayCircuit["fetchJSON"];

export function createFetchJSON(fetchFn: typeof fetch): FetchJSON {
  return async (input, init) => {
    const res = await fetchFn(input, init);
    if (!res.ok) throw await toGatewayError(res);
    const text = await res.text();
    return text === "" ? null : JSON.parse(text);
  };
}

/** TanStack's longest wait between retries; a server asking for more is not retried. */
export const MAX_RETRY_DELAY_MS = 30_000;

/** GatewayCircuit.retry's rule with `maxRetries`; without `circuit` it judges as before Go runs. */
export function createRetry(maxRetries = 3, circuit?: Pick<GatewayCircuit, "blocking" | "status">) {
  return (failureCount: number, error: unknown): boolean => {
    if (failureCount >= maxRetries) return false;
    if (isGatewayError(error)) {
      // A refused mutation (GatewayIdempotencyError) would be refused again.
      if (typeof error.httpStatus !== "number") return false;
      if (error.circuitOpen) {
        const asked = (p: Pause) => p.serverAsked && p.until === error.until && p.until - Date.now() <= MAX_RETRY_DELAY_MS;
        return error.reason === "cooldown" && !!circuit?.blocking().pauses.some(asked);
      }
      const s = error.status;
      if (s >= 400 && s < 500 && s !== 408 && s !== 429) return false;
      if ((error.retryAfterMs ?? 0) > MAX_RETRY_DELAY_MS) return false;
    }
    if (!circuit || circuit.status === "loading") return true;
    const b = circuit.blocking();
    return b.circuit === null && !b.halfOpen;
  };
}

/** TanStack's own retryDelay: 1 s, 2 s, 4 s… at most MAX_RETRY_DELAY_MS. */
export const backoff = (failureCount: number): number => Math.min(1000 * 2 ** failureCount, MAX_RETRY_DELAY_MS);

/**
 * GatewayCircuit.retryDelay over the instance's `blocking` and scope: a pause counts for the URLs of its service,
 * the longest scope entry a URL starts with, as Go pauses them (gate.ts serviceOf).
 */
export function createRetryDelay(blocking: () => Blocking, scope: () => readonly string[], now: () => number = Date.now) {
  return (failureCount: number, error: unknown): number => {
    let wait = 0;
    if (isGatewayError(error)) {
      wait = error.retryAfterMs ?? (error.until !== null ? error.until - now() : 0);
      const service = serviceOf(error.url, scope());
      for (const p of blocking().pauses) if (p.service === service) wait = Math.max(wait, p.until - now());
    }
    return wait > 0 ? Math.min(wait, MAX_RETRY_DELAY_MS) : backoff(failureCount);
  };
}

/** queryFn's options: RequestInit, and whether an unmount aborts the request. */
export interface QueryFnInit extends GatewayRequestInit {
  /**
   * Pass TanStack's AbortSignal to fetch. Default `false`, TanStack's own
   * default: a query whose component unmounts before the answer is not
   * cancelled, and a component mounted again joins the same request. With
   * `true`, TanStack sees the signal read, aborts the request at the last
   * unmount and fetches again at the next mount: React's StrictMode (on in
   * `next dev`) then sends every query twice.
   */
  abortOnUnmount?: boolean;
}

export function createQueryFn(fetchJSON: FetchJSON) {
  return <T = unknown>(input: RequestInfo | URL, init: QueryFnInit = {}): ((ctx: { signal?: AbortSignal }) => Promise<T>) => {
    const { abortOnUnmount = false, ...request } = init;
    return abortOnUnmount ? (ctx) => fetchJSON<T>(input, { ...request, signal: ctx.signal }) : () => fetchJSON<T>(input, request);
  };
}
