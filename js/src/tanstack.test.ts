// connectQueryClient with TanStack's real QueryClient (query-core) over a
// small stand-in circuit: arm on a 502, a synthetic 503 while armed, half-open
// after the TTL. The real circuit under the same client runs in
// e2e/matrix.test.mjs, behind nginx.

import assert from "node:assert/strict";
import { test } from "node:test";
import { QueryClient, QueryObserver } from "@tanstack/query-core";
import { createFetchJSON, createQueryFn, createRetry, createRetryDelay } from "./query.js";
import { synthetic } from "./responses.js";
import { StateMirror } from "./state.js";
import { connectQueryClient, isOutageError } from "./tanstack.js";
import { GatewayHttpError } from "./errors.js";

/** A circuit that arms for `ttl` ms on a 502 and answers locally while armed; `up` says how the gateway answers (`healthy`: the URLs it answers when not up). */
function standInCircuit(ttl = 60_000, healthy = (_url: string) => false) {
  let state: { until: number; httpStatus: number } | null = null;
  let halfOpen = false;
  const mirror = new StateMirror(Date.now, () => {});
  const g = { up: false, requests: 0 };
  const publish = () => mirror.set(state, halfOpen);
  const circuit = {
    status: "ready" as const,
        subscribe: mirror.subscribe.bind(mirror),
    blocking: () => mirror.blocking(),
    clear() {
      state = null;
      halfOpen = false;
      publish();
    },
    expire() {
      state = null;
      halfOpen = true;
      publish();
    },
    async fetch(url: string): Promise<Response> {
      if (state) return synthetic("open", state.until, state.httpStatus, Date.now());
      g.requests++;
      await new Promise((r) => setTimeout(r, 2));
      if (g.up || healthy(url)) {
        halfOpen = false;
        publish();
        return Response.json({ ok: true });
      }
      state = { until: Date.now() + ttl, httpStatus: 502 };
      halfOpen = false;
      publish();
      return new Response("bad gateway", { status: 502 });
    },
  };
  return { circuit, g };
}

/** n queries mounted, with the module's retry and retryDelay; resolves once each settled. */
async function page(circuit: ReturnType<typeof standInCircuit>["circuit"], n: number) {
  const client = new QueryClient({
    defaultOptions: { queries: { retry: createRetry(3, circuit), retryDelay: createRetryDelay(circuit.blocking, () => []) } },
  });
  const queryFn = createQueryFn(createFetchJSON(circuit.fetch as typeof fetch));
  const observers = Array.from({ length: n }, (_, i) => new QueryObserver(client, { queryKey: ["q", i], queryFn: queryFn(`/api/${i}`) }));
  const stops = observers.map((o) => o.subscribe(() => {}));
  await settled(observers);
  return { client, observers, stop: () => stops.forEach((s) => s()) };
}

const settled = async (observers: QueryObserver[]) => {
  for (let i = 0; i < 2500 && observers.some((o) => o.getCurrentResult().fetchStatus !== "idle"); i++) await new Promise((r) => setTimeout(r, 2));
};
const statuses = (observers: QueryObserver[]) => observers.map((o) => o.getCurrentResult().status);

test("an outage: the first 502 arms, nothing is retried; when the circuit turns half-open one probe, then the rest", async () => {
  const { circuit, g } = standInCircuit();
  const { client, observers, stop } = await page(circuit, 5);
  const connection = connectQueryClient(client, circuit);
  assert.deepEqual(statuses(observers), Array(5).fill("error"));
  assert.equal(g.requests, 5, "the load's burst went out before the first 502 came back; none was retried");
  assert.deepEqual(connection.outage(), { httpStatus: 502, until: circuit.blocking().circuit!.until, halfOpen: false, failedQueries: 5 });

  circuit.expire(); // the TTL is over, the gateway is still down
  await settled(observers);
  assert.equal(g.requests, 6, "one probe, not every query");
  assert.deepEqual(statuses(observers), Array(5).fill("error"));

  g.up = true;
  circuit.expire();
  for (let i = 0; i < 2500 && statuses(observers).some((s) => s !== "success"); i++) await new Promise((r) => setTimeout(r, 2));
  assert.deepEqual(statuses(observers), Array(5).fill("success"), "every failed query fetched again by itself");
  assert.equal(g.requests, 6 + 5);
  assert.equal(connection.outage(), null);
  connection.disconnect();
  stop();
});

test("tryAgain while the gateway is still down sends one probe; once it is back, every failed query", async () => {
  const { circuit, g } = standInCircuit();
  const { client, observers, stop } = await page(circuit, 4);
  const connection = connectQueryClient(client, circuit);
  const seen: (number | null)[] = [];
  connection.subscribe((o) => seen.push(o && o.httpStatus));
  for (let click = 1; click <= 3; click++) {
    await connection.tryAgain();
    await settled(observers);
    assert.equal(g.requests, 4 + click, `click ${click}: one request`);
  }
  g.up = true;
  await connection.tryAgain();
  await settled(observers);
  assert.deepEqual(statuses(observers), Array(4).fill("success"));
  assert.equal(g.requests, 4 + 3 + 4, "the probe, then the other three");
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(seen.at(-1), null, "the overlay is told the outage is over");
  connection.disconnect();
  stop();
});

test("one upstream down: the probe is the query that failed last, so a healthy one opened after the dead one gets it", async () => {
  const { circuit, g } = standInCircuit(60_000, (url) => url !== "/api/0"); // /api/0's upstream is down
  const now = Date.now;
  Date.now = () => 1_000; // both fail in the same millisecond (CI saw it): the tie goes to the later query too
  const { client, observers, stop } = await page(circuit, 1); // its query fails alone: the circuit arms
  const healthy = new QueryObserver(client, { queryKey: ["q", 1], queryFn: createQueryFn(createFetchJSON(circuit.fetch as typeof fetch))("/api/1") });
  const stopHealthy = healthy.subscribe(() => {});
  await settled([healthy]); // opened while armed: the circuit's answer
  Date.now = now;
  const connection = connectQueryClient(client, circuit);
  assert.deepEqual(statuses([...observers, healthy]), ["error", "error"]);
  circuit.expire(); // half-open: the probe is the healthy query, which failed after the dead one
  for (let i = 0; i < 2500 && healthy.getCurrentResult().status !== "success"; i++) await new Promise((r) => setTimeout(r, 2));
  assert.equal(healthy.getCurrentResult().status, "success", "the healthy query was the probe");
  await settled([...observers, healthy]);
  assert.equal(g.requests, 3, "the first load, the probe, and the dead query once more after it succeeded");
  connection.disconnect();
  stopHealthy();
  stop();
});

test("without the module (a missing file, fallback) a 502 still reads as an outage: the overlay keeps working", async () => {
  const nothing = () => ({ circuit: null, halfOpen: false, pauses: [] });
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const fetchFn = (async () => new Response("bad gateway", { status: 502 })) as typeof fetch;
  const connection = connectQueryClient(client, { subscribe: () => () => {}, blocking: nothing, clear() {} });
  const observer = new QueryObserver(client, { queryKey: ["me"], queryFn: createQueryFn(createFetchJSON(fetchFn))("/api/me") });
  const stop = observer.subscribe(() => {});
  await settled([observer]);
  assert.deepEqual(connection.outage(), { httpStatus: 502, until: null, halfOpen: false, failedQueries: 1 });
  stop();
  connection.disconnect();
});

test("a trip status of the page's own (data-trip-statuses) reads as an outage; the defaults' do not include it", async () => {
  const nothing = () => ({ circuit: null, halfOpen: false, pauses: [] });
  const seen = [];
  for (const options of [{ tripStatuses: [408, 502, 503, 504] }, undefined]) {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const fetchFn = (async () => new Response("timeout", { status: 408 })) as typeof fetch;
    const connection = connectQueryClient(client, { subscribe: () => () => {}, blocking: nothing, clear() {}, options });
    const observer = new QueryObserver(client, { queryKey: ["me"], queryFn: createQueryFn(createFetchJSON(fetchFn))("/api/me") });
    const stop = observer.subscribe(() => {});
    await settled([observer]);
    seen.push(connection.outage());
    stop();
    connection.disconnect();
  }
  assert.deepEqual(seen, [{ httpStatus: 408, until: null, halfOpen: false, failedQueries: 1 }, null]);
});

test("isOutageError: the circuit's answer and a 502/503/504; not a pause, a 500 or a 404", () => {
  const e = (status: number, circuitOpen = false, reason: "open" | "cooldown" | null = null) =>
    new GatewayHttpError({ status, httpStatus: circuitOpen ? 502 : status, circuitOpen, until: null, url: "/api/x", reason });
  assert.deepEqual(
    [e(503, true, "open"), e(502), e(503), e(504), e(503, true, "cooldown"), e(500), e(404), new TypeError("x")].map((x) => isOutageError(x)),
    [true, true, true, true, false, false, false, false],
  );
});

/** A circuit whose Go has not run yet: what the tag armed early answers locally; `answer` is the network. */
function beforeGo(answer: (n: number) => Response) {
  let armed: { until: number; httpStatus: number } | null = null;
  const g = { requests: 0 };
  const circuit = {
    status: "loading" as const,
    subscribe: () => () => {},
    blocking: () => ({ circuit: armed, halfOpen: false, pauses: [] }),
    clear() {},
    async fetch(): Promise<Response> {
      if (armed) return synthetic("open", armed.until, armed.httpStatus, Date.now());
      const res = answer(g.requests++);
      if (res.status === 502) armed = { until: Date.now() + 60_000, httpStatus: 502 }; // the tag's early rule
      return res;
    },
  };
  const client = new QueryClient({ defaultOptions: { queries: { retry: createRetry(3, circuit), retryDelay: 5 } } });
  const queryFn = createQueryFn(createFetchJSON(circuit.fetch as typeof fetch));
  const observers = [0, 1, 2].map((i) => new QueryObserver(client, { queryKey: ["early", i], queryFn: queryFn(`/api/${i}`) }));
  const stops = observers.map((o) => o.subscribe(() => {}));
  return { g, observers, stop: () => stops.forEach((s) => s()) };
}

test("a rate limiter's 503 before Go runs is retried as TanStack would: every query succeeds", async () => {
  const { g, observers, stop } = beforeGo((n) => (n < 2 ? new Response("busy", { status: 503 }) : Response.json({ ok: 1 })));
  await settled(observers);
  assert.deepEqual(statuses(observers), ["success", "success", "success"]);
  assert.equal(g.requests, 5, "the two refused, once more each");
  stop();
});

test("an outage before Go runs: the retry meets the circuit the tag armed and is answered locally, without a request", async () => {
  const { g, observers, stop } = beforeGo(() => new Response("bad gateway", { status: 502 }));
  await settled(observers);
  assert.deepEqual(statuses(observers), ["error", "error", "error"]);
  assert.equal(g.requests, 1, "the first 502 armed; the other two and every retry were answered locally");
  assert.ok(observers.every((o) => (o.getCurrentResult().error as GatewayHttpError).circuitOpen));
  stop();
});
