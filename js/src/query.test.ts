import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { isCircuitOpenError, isGatewayError } from "./brand.js";
import { GatewayHttpError } from "./errors.js";
import { QueryClient, type QueryFunction, QueryObserver } from "@tanstack/query-core";
import { gatewayCircuit as entryCircuit } from "./index.js";
import { createPassthrough } from "./passthrough.js";
import { createFetchJSON, createQueryFn, createRetry, createRetryDelay, type FetchJSON, retryAfterOf, toGatewayError } from "./query.js";
import type { Blocking } from "./types.js";

const open = () =>
  new Response(`{"error":"gateway_circuit_open","httpStatus":502,"until":123}`, {
    status: 503,
    headers: { "x-gateway-circuit": "open" },
  });

test("a synthetic 503 becomes an open-circuit error carrying the original status", async () => {
  const e = await toGatewayError(open());
  assert.ok(isGatewayError(e) && isCircuitOpenError(e));
  assert.equal(e.code, "GATEWAY_CIRCUIT_OPEN");
  assert.equal(e.status, 503);
  assert.equal(e.httpStatus, 502);
  assert.equal(e.until, 123);
  assert.equal(e.reason, "open");
});

test("a cooldown answer says so", async () => {
  const e = await toGatewayError(
    new Response(`{"error":"gateway_cooldown","httpStatus":429,"until":5}`, {
      status: 503,
      headers: { "x-gateway-circuit": "cooldown" },
    }),
  );
  assert.ok(isCircuitOpenError(e));
  assert.equal(e.reason, "cooldown");
  assert.equal(e.httpStatus, 429);
});

test("a real 503 is not an open-circuit error", async () => {
  const e = await toGatewayError(new Response("down", { status: 503 }));
  assert.ok(isGatewayError(e) && !isCircuitOpenError(e));
  assert.equal(e.code, "GATEWAY_HTTP_ERROR");
  assert.equal(e.httpStatus, 503);
});

test("the guards work on a copy from another bundle (brand, not instanceof)", () => {
  const foreign = Object.assign(new Error("x"), { [Symbol.for("gatewaycircuit.error")]: true, circuitOpen: true });
  assert.ok(isGatewayError(foreign));
  assert.ok(isCircuitOpenError(foreign));
  assert.ok(!isGatewayError(new Error("plain")));
  assert.ok(!isGatewayError(null) && !isGatewayError("GATEWAY_CIRCUIT_OPEN"));
});

test("fetchJSON parses 2xx and throws for the rest", async () => {
  const responses = [new Response(`{"a":1}`), new Response(null, { status: 204 }), new Response("nope", { status: 404 })];
  const f = createFetchJSON((async () => responses.shift()!) as typeof fetch);
  assert.deepEqual(await f("/x"), { a: 1 });
  assert.equal(await f("/x"), null);
  await assert.rejects(f("/x"), (e: unknown) => isGatewayError(e) && e.httpStatus === 404);
});

const err = (status: number, more: { circuitOpen?: boolean; httpStatus?: number; retryAfterMs?: number; reason?: "cooldown"; until?: number; url?: string } = {}) =>
  new GatewayHttpError({ status, httpStatus: more.httpStatus ?? status, circuitOpen: more.circuitOpen ?? false, until: null, url: "http://x/api/a", ...more });
const closed = (): Blocking => ({ circuit: null, halfOpen: false, pauses: [] });
const ready = (blocking: () => Blocking, status: "loading" | "ready" | "fallback" = "ready") => ({ blocking, status });

test("retry: never a local answer, another 4xx, or past the bound; a 5xx, 408, 429 and network errors up to 3 times", () => {
  const retry = createRetry(3, ready(closed));
  assert.equal(retry(0, err(503, { circuitOpen: true, httpStatus: 502 })), false, "the circuit's answer");
  const pause = (inMs: number) => err(503, { circuitOpen: true, httpStatus: 429, reason: "cooldown", until: Date.now() + inMs });
  assert.equal(retry(0, pause(1000)), false, "a pause the module chose: connectQueryClient asks once when it ends");
  assert.equal(retry(0, err(404)), false);
  assert.equal(retry(0, err(503)), true, "a rate limiter's 503 while the circuit stays closed");
  assert.equal(retry(0, err(429, { retryAfterMs: 1000 })), true);
  assert.equal(retry(0, err(429, { retryAfterMs: 120_000 })), false, "the server asked for more than 30 s");
  assert.equal(retry(0, err(408)), true);
  assert.equal(retry(0, err(500)), true);
  assert.equal(retry(2, err(500)), true);
  assert.equal(retry(3, err(500)), false);
  assert.equal(retry(1, new TypeError("Failed to fetch")), true);
  assert.equal(createRetry(1, ready(closed))(1, err(500)), false, "maxRetries bounds it");
});

test("retry: the answer of a pause the server asked for, once it ends; not one the module chose, nor one beyond 30 s", () => {
  const until = Date.now() + 1000;
  const paused = (serverAsked: boolean, end = until) => ready(() => ({ ...closed(), pauses: [{ service: "http://x/api/", until: end, serverAsked }] }));
  const answer = (end = until) => err(503, { circuitOpen: true, httpStatus: 429, reason: "cooldown", until: end });
  assert.equal(createRetry(3, paused(true))(0, answer()), true, "Retry-After: the retry comes when the server said");
  assert.equal(createRetry(3, paused(false))(0, answer()), false, "no Retry-After: the module's guess");
  const far = until + 60_000;
  assert.equal(createRetry(3, paused(true, far))(0, answer(far)), false, "past 30 s");
  assert.equal(createRetry()(0, answer()), false, "without the circuit's view (the tag's stand-in)");
});

test("retry: nothing while the circuit is armed or half-open (the retry would go to a gateway held as down)", () => {
  const armed = createRetry(3, ready(() => ({ ...closed(), circuit: { until: Date.now() + 1000, httpStatus: 502 } })));
  assert.equal(armed(0, err(502)), false);
  assert.equal(armed(0, err(500)), false);
  assert.equal(armed(0, new TypeError("Failed to fetch")), false);
  const halfOpen = createRetry(3, ready(() => ({ ...closed(), halfOpen: true })));
  assert.equal(halfOpen(0, err(503)), false);
});

test("before Go runs (or without the circuit's view) nothing is judged yet: retried as TanStack would, the circuit's own answer aside", () => {
  const armedEarly = () => ({ ...closed(), circuit: { until: Date.now() + 1000, httpStatus: 502 } });
  for (const retry of [createRetry(), createRetry(3, ready(closed, "loading")), createRetry(3, ready(armedEarly, "loading")), createRetry(3, ready(closed, "fallback"))]) {
    assert.equal(retry(0, err(502)), true, "a limiter's 503 or an outage: Go judges it before the retry goes out");
    assert.equal(retry(0, err(500)), true);
    assert.equal(retry(0, err(429, { retryAfterMs: 1000 })), true);
    assert.equal(retry(0, err(503, { circuitOpen: true, httpStatus: 502 })), false, "the circuit's answer");
  }
});

const scope = () => ["http://x/api/"];

test("retryDelay: the server's Retry-After, the module's pause for that service, else TanStack's backoff", async () => {
  const pauses = (until: number): Blocking => ({ ...closed(), pauses: [{ service: "http://x/api/", until, serverAsked: false }] });
  const t = 1_000_000;
  assert.equal(createRetryDelay(closed, scope, () => t)(0, err(429, { retryAfterMs: 1000 })), 1000);
  assert.equal(createRetryDelay(() => pauses(t + 5000), scope, () => t)(0, err(429, { retryAfterMs: 1000 })), 5000, "the pause is longer");
  assert.equal(createRetryDelay(closed, scope, () => t)(0, err(503, { circuitOpen: true, httpStatus: 429, reason: "cooldown", until: t + 1500 })), 1500, "the pause that answered");
  assert.equal(createRetryDelay(() => pauses(t + 5000), scope, () => t)(0, err(429)), 5000);
  // Nested scope entries: a URL's service is the longest entry it starts with, as Go pauses it; a wider one's pause is not its.
  const nested = createRetryDelay(() => pauses(t + 25_000), () => ["http://x/api/", "http://x/api/slow/"], () => t);
  assert.equal(nested(1, err(502, { url: "http://x/api/slow/report" })), 2000, "Go sends it at once: TanStack's backoff");
  assert.equal(nested(1, err(502)), 25_000, "its own service's pause");
  const backoff = createRetryDelay(closed, scope, () => t);
  assert.deepEqual([0, 1, 2, 10].map((n) => backoff(n, err(500))), [1000, 2000, 4000, 30_000]);
  assert.equal(backoff(0, new TypeError("Failed to fetch")), 1000);
  // The header, read where the error is made: seconds or an HTTP date.
  const e = await toGatewayError(new Response("slow down", { status: 429, headers: { "retry-after": "2" } }));
  assert.equal(e.retryAfterMs, 2000);
  assert.equal(retryAfterOf(new Date(t + 3000).toUTCString(), t), 3000);
  assert.equal(retryAfterOf("soon", t), null);
  assert.equal(retryAfterOf(null, t), null);
});

// Go's vectors (policy/retryafter), read where the page is: in Seoul an
// asctime date read as local time (Date.parse) was 9 hours off.
test("Retry-After is read as Go's retryafter.Parse reads it, in any time zone", () => {
  const file = JSON.parse(readFileSync("policy/retryafter/testdata/vectors.json", "utf8")) as {
    nowMs: number;
    cases: { value: string; wantMs: number | null }[];
  };
  assert.ok(file.cases.length >= 50);
  const tz = process.env.TZ;
  try {
    for (const zone of ["UTC", "Asia/Seoul", "America/Los_Angeles"]) {
      process.env.TZ = zone;
      for (const c of file.cases) assert.equal(retryAfterOf(c.value, file.nowMs), c.wantMs, `${JSON.stringify(c.value)} in ${zone}`);
    }
  } finally {
    if (tz === undefined) delete process.env.TZ;
    else process.env.TZ = tz;
  }
});

test("retry never retries a refused mutation", async () => {
  const { GatewayIdempotencyError } = await import("./errors.js");
  const retry = createRetry();
  assert.equal(retry(0, new GatewayIdempotencyError("bad key")), false);
});

// React's StrictMode (on in `next dev` with the App Router) mounts every
// component, unmounts it and mounts it again: useQuery subscribes its
// observer, unsubscribes it, subscribes it again, all before the first
// response. TanStack cancels a query at its last unsubscribe only when the
// queryFn read the AbortSignal; then the second mount fetches again.
async function strictModeMount(queryFn: QueryFunction<unknown>) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const observer = new QueryObserver(client, { queryKey: ["/api/me"], queryFn });
  let unsubscribe = observer.subscribe(() => {});
  unsubscribe();
  unsubscribe = observer.subscribe(() => {});
  await client.fetchQuery({ queryKey: ["/api/me"], queryFn }); // joins the query in flight
  const result = observer.getCurrentResult();
  unsubscribe();
  client.clear();
  return result;
}

function countingFetchJSON() {
  const calls: { init?: RequestInit }[] = [];
  const fetchJSON: FetchJSON = async <T>(_input: RequestInfo | URL, init?: RequestInit) => {
    calls.push({ init });
    await new Promise((r) => setTimeout(r, 10));
    init?.signal?.throwIfAborted();
    return { name: "kim" } as T;
  };
  return { calls, fetchJSON };
}

test("queryFn: a StrictMode mount, unmount, mount sends one request, not two", async () => {
  const { calls, fetchJSON } = countingFetchJSON();
  const result = await strictModeMount(createQueryFn(fetchJSON)("/api/me"));
  assert.equal(calls.length, 1);
  assert.deepEqual(result.data, { name: "kim" });
  assert.equal(calls[0].init?.signal, undefined, "TanStack's signal is not passed by default");
});

test("queryFn: never reads TanStack's signal unless asked, and keeps the caller's init", async () => {
  const { calls, fetchJSON } = countingFetchJSON();
  let read = 0;
  const ctx = {};
  Object.defineProperty(ctx, "signal", { enumerable: true, get: () => (read++, new AbortController().signal) });
  const own = new AbortController().signal;
  await createQueryFn(fetchJSON)("/api/me", { cache: "no-store", signal: own })(ctx);
  assert.equal(read, 0, "reading it is what tells TanStack to abort on unmount");
  assert.deepEqual(calls[0].init, { cache: "no-store", signal: own });
});

test("queryFn({abortOnUnmount: true}): passes TanStack's signal, so an unmount aborts the request", async () => {
  const { calls, fetchJSON } = countingFetchJSON();
  const result = await strictModeMount(createQueryFn(fetchJSON)("/api/me", { abortOnUnmount: true, cache: "no-store" }));
  assert.equal(calls.length, 2, "the first mount's request was aborted and the second mount fetched again");
  assert.equal(calls[0].init?.signal?.aborted, true);
  assert.equal(calls[1].init?.signal?.aborted, false);
  assert.equal(calls[1].init?.cache, "no-store");
  assert.ok(!("abortOnUnmount" in (calls[1].init ?? {})), "the option is not passed on to fetch");
  assert.deepEqual(result.data, { name: "kim" });
});

test("queryFn from the package entry and from the pass-through behave the same", async () => {
  const saved = globalThis.fetch;
  let requests = 0;
  globalThis.fetch = async () => (requests++, await new Promise((r) => setTimeout(r, 10)), Response.json({ ok: true }));
  try {
    for (const circuit of [entryCircuit, createPassthrough(new Error("no tag"))]) {
      requests = 0;
      const result = await strictModeMount(circuit.queryFn("/api/me"));
      assert.equal(requests, 1);
      assert.deepEqual(result.data, { ok: true });
    }
  } finally {
    globalThis.fetch = saved;
  }
});
