// The TanStack Query helpers: a fetcher that throws GatewayHttpError for
// non-2xx answers, and a retry predicate that never retries an open circuit.

import { isGatewayError } from "./brand.js";
import { GatewayHttpError } from "./errors.js";
import type { GatewayRequestInit } from "./types.js";

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
  if (!SHORT_CIRCUITS.has(res.headers.get(MARKER_HEADER) ?? "")) {
    return new GatewayHttpError({ status: res.status, httpStatus: res.status, circuitOpen: false, until: null, url });
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
  const reason = res.headers.get(MARKER_HEADER) as "open" | "cooldown" | "negative";
  return new GatewayHttpError({ status: res.status, httpStatus, circuitOpen: true, until, url, reason });
}

/** `T` is the caller's expectation of the JSON (unchecked, like `res.json() as T`). */
export type FetchJSON = <T = unknown>(input: RequestInfo | URL, init?: RequestInit) => Promise<T>;

export function createFetchJSON(fetchFn: typeof fetch): FetchJSON {
  return async (input, init) => {
    const res = await fetchFn(input, init);
    if (!res.ok) throw await toGatewayError(res);
    if (res.status === 204) return null;
    const text = await res.text();
    return text === "" ? null : JSON.parse(text);
  };
}

/**
 * TanStack's `retry` option. Never retries: an open circuit (the answer is
 * already known), a trip status (it just armed the circuit), or a 4xx other
 * than 408. Anything else (network errors, 500) is retried up to
 * `maxRetries` times, like TanStack's default of 3.
 */
export function createRetry(tripStatuses: readonly number[], maxRetries = 3) {
  return (failureCount: number, error: unknown): boolean => {
    if (isGatewayError(error)) {
      // A refused mutation (GatewayIdempotencyError) would be refused again.
      if (typeof error.httpStatus !== "number") return false;
      if (error.circuitOpen || tripStatuses.includes(error.httpStatus)) return false;
      if (error.httpStatus >= 400 && error.httpStatus < 500 && error.httpStatus !== 408) return false;
    }
    return failureCount < maxRetries;
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

/**
 * TanStack's `queryFn` for one URL. It reads the context's `signal` only
 * with `abortOnUnmount`: reading it is what makes TanStack abort the query.
 */
export function createQueryFn(fetchJSON: FetchJSON) {
  return <T = unknown>(input: RequestInfo | URL, init: QueryFnInit = {}): ((ctx: { signal?: AbortSignal }) => Promise<T>) => {
    const { abortOnUnmount = false, ...request } = init;
    return abortOnUnmount ? (ctx) => fetchJSON<T>(input, { ...request, signal: ctx.signal }) : () => fetchJSON<T>(input, request);
  };
}
