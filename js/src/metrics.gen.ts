// Code generated from internal/abi (go generate ./internal/abi). DO NOT EDIT.
// metrics()'s counters as internal/abi/metrics.go declares them: what each
// counts, and who counts it (Go, the shim, or both: the sum).

/**
 * Counters since the page loaded: `calls = answeredLocally + passedThrough +
 * network - retries`, but for the calls still waiting or aborted while they
 * waited; the per-policy counters say why (docs/api.md, "Metrics"). Before the
 * wasm runs (and in fallback) Go's counters stay 0.
 */
export interface Metrics {
  /** Calls of `gatewayCircuit.fetch`, whatever became of them. */
  calls: number;
  /** Requests sent to the network (probes and retries included), the quiet path too. */
  network: number;
  /** Calls answered without a request of their own: the circuit, a pause, a shared request, the negative cache, a copy, an idempotency refusal. */
  answeredLocally: number;
  /** Calls handed to the browser's fetch untouched: out of scope, an input fetch rejects by itself, an aborted signal, or too large to decide (`untouched`). Not guarded, so not in `network`. */
  passedThrough: number;
  /** Answered by the armed circuit. */
  shortCircuited: number;
  /** Callers that shared a request in flight instead of sending one. */
  coalesced: number;
  /** Answered by the negative cache. */
  negativeHits: number;
  /** Answered with a stale copy. */
  staleServed: number;
  /** Half-open probes sent. */
  probes: number;
  /** Retries after a 429 with a short Retry-After. */
  retries: number;
  /** Answered by a 429 cooldown. */
  cooledDown: number;
  /** Answered with the copy of a GET that keeps answering empty (data-empty-ttl). */
  emptyReused: number;
  /** Entries dropped from a full table (requests in flight, negative cache, cooldowns, empty-result TTLs). */
  evicted: number;
  /** Mutations refused locally: a key reused with another body (a 422) or a malformed key of the caller's own (thrown). */
  idempotencyRefused: number;
  /** In scope, but passed through untouched because too large to decide on (a frame over 16 MiB); part of `passedThrough`. */
  untouched: number;
  /** Scouts of an open circuit sent: an open period the page's trip rule armed has one, the first GET whose key it has not seen (a second only after the first was aborted or answered opaque). */
  scouts: number;
  /** Calls Go decided one by one (the quiet path's plain GETs are not): a half-open waiter is decided once when it arrives and once when the probe ends, so this stays small while a probe hangs. */
  decisions: number;
}

/** The counters the shim keeps, counted where it carries a request out (Go keeps the others). */
export const JS_COUNTED = ["calls", "network", "answeredLocally", "passedThrough", "shortCircuited", "coalesced", "retries", "cooledDown", "idempotencyRefused", "untouched"] as const;
export type JsCounts = Record<(typeof JS_COUNTED)[number], number>;

/** The counters Go keeps, with their index for gc_metric; a counter in JS_COUNTED too is the sum. */
export const GO_COUNTED: readonly (readonly [keyof Metrics, number])[] = [["shortCircuited", 1], ["coalesced", 2], ["negativeHits", 3], ["staleServed", 4], ["probes", 5], ["cooledDown", 7], ["emptyReused", 8], ["evicted", 9], ["scouts", 11], ["decisions", 10]];

/** The metrics of a phase that has counted nothing. */
export function noMetrics(): Metrics {
  return { calls: 0, network: 0, answeredLocally: 0, passedThrough: 0, shortCircuited: 0, coalesced: 0, negativeHits: 0, staleServed: 0, probes: 0, retries: 0, cooledDown: 0, emptyReused: 0, evicted: 0, idempotencyRefused: 0, untouched: 0, scouts: 0, decisions: 0 };
}
