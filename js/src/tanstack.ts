// The TanStack Query client, connected to the circuit: queries that failed
// because of the gateway are fetched again by themselves when the circuit
// closes or turns half-open — one first, the rest only if it succeeds; and
// the overlay's question (is the gateway down?) answered from the circuit and
// the queries' errors. Written against the shapes of TanStack's QueryClient
// and Query, not its code: the package depends on nothing at run time.

import { isGatewayError } from "./brand.js";
import { DEFAULT_TRIP_STATUSES } from "./config.js";
import { tell } from "./state.js";
import type { GatewayHttpError } from "./errors.js";
import type { Blocking, GatewayCircuit, ResolvedOptions } from "./types.js";

/** What this needs of a TanStack Query (`@tanstack/query-core`'s Query). */
export interface QueryLike {
  readonly state: { readonly status: string; readonly fetchStatus: string; readonly error: unknown; readonly errorUpdatedAt?: number };
  isActive(): boolean;
}

/** What this needs of a TanStack QueryClient (v5, query-core or React). */
export interface QueryClientLike {
  getQueryCache(): { findAll(): QueryLike[]; subscribe(listener: () => void): () => void };
  refetchQueries(filters: { predicate: (query: QueryLike) => boolean }): Promise<unknown>;
}

/** What the overlay shows; null when nothing is wrong. */
export interface Outage {
  /** The gateway's failure: the armed circuit's status, else the status of a failed query (502, 503, 504), else 429 for a pause; 0 when only half-open. */
  readonly httpStatus: number;
  /** When the circuit closes or the pause ends (epoch ms); null when known only from a query's error. */
  readonly until: number | null;
  /** The TTL is over: the next query is the one probe. */
  readonly halfOpen: boolean;
  /** Active queries whose last fetch failed because of the gateway. */
  readonly failedQueries: number;
}

export interface QueryClientConnection {
  /** Whether the gateway is down, from the circuit and the failed queries. */
  outage(): Outage | null;
  /** `listener(outage)` whenever outage() changes; returns unsubscribe. */
  subscribe(listener: (outage: Outage | null) => void): () => void;
  /**
   * The overlay's "try again": clear() and fetch the failed queries again,
   * one first, the rest only when it succeeds; resolves when they settled.
   */
  tryAgain(): Promise<void>;
  /** Stops refetching and notifying. */
  disconnect(): void;
}

/**
 * A query error that means the gateway is down: the circuit's answer, or a
 * 502, 503 or 504 from the network (also without the module: a missing
 * file or fallback leaves the outage screen working).
 */
export function isOutageError(e: unknown, tripStatuses: readonly number[] = DEFAULT_TRIP_STATUSES): e is GatewayHttpError {
  if (!isGatewayError(e) || typeof e.httpStatus !== "number") return false;
  return e.circuitOpen ? e.reason === "open" : tripStatuses.includes(e.status);
}

/**
 * Connects `client` to `circuit` (see the file's header). Call it once, where
 * the QueryClient is made; `disconnect()` undoes it.
 */
export function connectQueryClient(
  client: QueryClientLike,
  circuit: Pick<GatewayCircuit, "subscribe" | "blocking" | "clear"> & { readonly options?: Pick<ResolvedOptions, "tripStatuses"> },
): QueryClientConnection {
  const cache = client.getQueryCache();
  // The page's trip statuses (data-trip-statuses, as Go put them in force); the defaults until the facade runs.
  const trips = () => circuit.options?.tripStatuses ?? DEFAULT_TRIP_STATUSES;
  /** An active query whose error the gateway caused (an outage, the module's answer, a 429): another fetch may fix it. */
  const failed = (q: QueryLike) => {
    const { status, fetchStatus, error: e } = q.state;
    return q.isActive() && status === "error" && fetchStatus === "idle" && isGatewayError(e) && (e.circuitOpen || e.status === 429 || isOutageError(e, trips()));
  };
  const blocks = (b: Blocking) => b.circuit !== null || b.pauses.length > 0;
  let blocked = blocks(circuit.blocking());
  let recovering: Promise<void> | null = null;

  // The probe is the query that failed last: with one upstream down, its
  // queries failed first, and a healthy section opened after them is asked.
  function recover(): Promise<void> {
    if (recovering) return recovering;
    const all = cache.findAll().filter(failed);
    const first = all.reduce<QueryLike | undefined>((a, q) => (a && (a.state.errorUpdatedAt ?? 0) > (q.state.errorUpdatedAt ?? 0) ? a : q), undefined); // a tie: the later in the cache
    if (!first) return Promise.resolve();
    recovering = (async () => {
      try {
        await client.refetchQueries({ predicate: (q) => q === first });
        if (first.state.status !== "success") return;
        await client.refetchQueries({ predicate: (q) => q !== first && all.includes(q) && failed(q) });
      } finally {
        recovering = null;
      }
    })();
    return recovering;
  }

  const onCircuit = (_: unknown, b: Blocking) => {
    const now = blocks(b);
    if (blocked && !now) void recover();
    blocked = now;
    notify();
  };

  function outage(): Outage | null {
    const b = circuit.blocking();
    const errors = cache.findAll().filter(failed).map((q) => q.state.error);
    const pause = b.pauses[0];
    const httpStatus = b.circuit?.httpStatus ?? errors.find((e) => isOutageError(e, trips()))?.httpStatus ?? (pause ? 429 : 0);
    if (httpStatus === 0 && !b.halfOpen) return null;
    return { httpStatus, until: b.circuit?.until ?? pause?.until ?? null, halfOpen: b.halfOpen, failedQueries: errors.length };
  }

  const listeners = new Set<(o: Outage | null) => void>();
  let last = "null";
  function notify() {
    const o = outage();
    const key = JSON.stringify(o);
    if (key === last) return;
    last = key;
    for (const l of [...listeners]) tell(l, o);
  }

  const stops = [circuit.subscribe(onCircuit), cache.subscribe(notify)];
  return {
    outage,
    subscribe(listener) {
      listeners.add(listener);
      queueMicrotask(() => listeners.has(listener) && tell(listener, outage()));
      return () => void listeners.delete(listener);
    },
    tryAgain() {
      circuit.clear();
      return recover();
    },
    disconnect() {
      for (const stop of stops.splice(0)) stop();
      listeners.clear();
    },
  };
}
