import assert from "node:assert/strict";
import { test } from "node:test";
import { createEarly } from "./early.js";
import { GatewayHttpError } from "./errors.js";
import { COOLDOWN_KEY, STORAGE_KEY } from "./storage.js";
import type { GatewayCircuit, Listener } from "./types.js";

function memoryStorage(entries: Record<string, string> = {}) {
  const m = new Map(Object.entries(entries));
  return {
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k),
    map: m,
  } as unknown as Storage & { map: Map<string, string> };
}

function plainFetch() {
  const sent: string[] = [];
  const f = ((input: RequestInfo | URL, init?: RequestInit) => {
    sent.push(`${init?.method ?? (input instanceof Request ? input.method : "GET")} ${String(input instanceof Request ? input.url : input)}`);
    return Promise.resolve(new Response('"plain"', { status: 200 }));
  }) as typeof fetch;
  return { f, sent };
}

/** A facade that records what it is asked. */
function fakeFacade() {
  const asked: string[] = [];
  const facade = {
    fetch: (input: RequestInfo | URL) => (asked.push(`fetch ${String(input)}`), Promise.resolve(new Response("facade", { status: 200 }))),
    fetchJSON: async () => (asked.push("fetchJSON"), { from: "facade" }),
    read: () => (asked.push("read"), null),
    subscribe: () => (asked.push("subscribe"), () => asked.push("unsubscribe")),
    clear: () => asked.push("clear"),
    ready: Promise.resolve(),
    get status() {
      return "loading";
    },
  } as unknown as GatewayCircuit;
  return { facade, asked };
}

const tick = () => new Promise((r) => setTimeout(r, 0));
const armedFor = (ms: number) => JSON.stringify({ until: Date.now() + ms, httpStatus: 502 });

test("with nothing stored, a GET goes out at once and is handed over; a mutation waits for the facade", async () => {
  const { f, sent } = plainFetch();
  const early = createEarly(f, memoryStorage(), undefined);
  const got = await early.api.fetch("/api/a");
  assert.equal(await got.json(), "plain");
  const post = early.api.fetch("/api/orders", { method: "POST", body: "{}" });
  await tick();
  assert.deepEqual(sent, ["GET /api/a"], "the POST waits");
  const { facade, asked } = fakeFacade();
  const handover = early.adopt(facade);
  assert.equal(await (await post).text(), "facade");
  assert.deepEqual(asked, ["fetch /api/orders"]);
  assert.deepEqual(
    handover.sent.map((c) => c.input),
    ["/api/a"],
  );
});

test("while a circuit or a pause is stored, every call waits for the facade, which decides it", async () => {
  for (const key of [STORAGE_KEY, COOLDOWN_KEY]) {
    const { f, sent } = plainFetch();
    const early = createEarly(f, memoryStorage({ [key]: key === STORAGE_KEY ? armedFor(60_000) : "x" }), undefined);
    const p = early.api.fetch("/api/a");
    await tick();
    assert.deepEqual(sent, [], key);
    const { facade, asked } = fakeFacade();
    assert.deepEqual(early.adopt(facade).sent, []);
    await p;
    assert.deepEqual(asked, ["fetch /api/a"], key);
  }
});

test("read() and blocking() read the stored circuit by the shared rule; anything else is null", () => {
  const cases: [string | null, boolean][] = [
    [armedFor(60_000), true],
    [armedFor(-1), false],
    ['{"until":"soon","httpStatus":502}', false],
    ["{not json", false],
    [null, false],
  ];
  for (const [raw, armed] of cases) {
    const early = createEarly(plainFetch().f, memoryStorage(raw === null ? {} : { [STORAGE_KEY]: raw }), undefined);
    assert.equal(early.api.read()?.httpStatus ?? null, armed ? 502 : null, String(raw));
    assert.deepEqual(early.api.blocking().circuit, early.api.read());
  }
});

test("storage that throws holds nothing: reads are null and a GET still goes out", async () => {
  const throwing = {
    getItem() {
      throw new Error("SecurityError");
    },
  } as unknown as Storage;
  const { f, sent } = plainFetch();
  const early = createEarly(f, throwing, undefined);
  assert.equal(early.api.read(), null);
  await early.api.fetch("/api/a");
  assert.deepEqual(sent, ["GET /api/a"]);
});

test("arm() writes the stored format with the tag's TTL and checks its input as the facade does; clear() removes it and is done again by the facade", () => {
  const storage = memoryStorage();
  const early = createEarly(plainFetch().f, storage, "30000");
  const before = Date.now();
  const s = early.api.arm(503);
  assert.equal(s.httpStatus, 503);
  assert.ok(s.until >= before + 30_000 && s.until <= Date.now() + 30_000);
  assert.deepEqual(JSON.parse(storage.map.get(STORAGE_KEY)!), s);
  assert.deepEqual(early.api.read(), s);
  assert.equal(early.api.arm(502, 1000).until <= Date.now() + 1000, true);
  assert.throws(() => early.api.arm(42), RangeError);
  assert.throws(() => early.api.arm(502, 0), RangeError);
  assert.throws(() => early.api.arm(502, Number.NaN), RangeError);
  early.api.clear();
  assert.equal(storage.map.has(STORAGE_KEY), false);
  const { facade, asked } = fakeFacade();
  const handover = early.adopt(facade);
  assert.equal(handover.clear, true);
  assert.deepEqual(asked, [], "the facade's file calls clear() with the handover");
});

test("subscribers are handed to the facade; one that left before does not arrive, one that leaves after leaves the facade", () => {
  const early = createEarly(plainFetch().f, memoryStorage(), undefined);
  const stays: Listener = () => {};
  const gone: Listener = () => {};
  const offStays = early.api.subscribe(stays);
  early.api.subscribe(gone)();
  assert.throws(() => early.api.subscribe(42 as unknown as Listener), TypeError);
  const { facade, asked } = fakeFacade();
  early.adopt(facade);
  assert.deepEqual(asked, ["subscribe"]);
  offStays();
  assert.deepEqual(asked, ["subscribe", "unsubscribe"]);
});

test("after adopt the object is the facade: its properties replace the stand-in's", async () => {
  const early = createEarly(plainFetch().f, memoryStorage(), undefined);
  const api = early.api;
  const earlyFetch = api.fetch;
  const { facade, asked } = fakeFacade();
  early.adopt(facade);
  assert.equal(api.fetch, facade.fetch);
  assert.equal(api.ready, facade.ready);
  assert.equal(api.status, "loading");
  await earlyFetch("/api/held-early"); // a method taken before still reaches the facade
  assert.deepEqual(asked, ["fetch /api/held-early"]);
});

test("without the facade's file: waiting calls and later ones go to the plain fetch, ready rejects, one warning", async (t) => {
  const warn = t.mock.method(console, "warn", () => {});
  const { f, sent } = plainFetch();
  const early = createEarly(f, memoryStorage({ [STORAGE_KEY]: armedFor(60_000) }), undefined);
  const waiting = early.api.fetch("/api/a");
  const json = early.api.fetchJSON("/api/b");
  early.fail(new Error("/x/gateway-circuit-facade.abc.js did not load"));
  early.fail(new Error("again"));
  assert.equal((await waiting).status, 200);
  assert.equal(await json, "plain");
  await early.api.fetch("/api/c");
  assert.deepEqual(sent, ["GET /api/a", "GET /api/b", "GET /api/c"]);
  assert.equal(early.api.status, "fallback");
  await assert.rejects(early.api.ready, /did not load/);
  assert.equal(warn.mock.callCount(), 1);
  early.fail(new Error("late")); // said once
  assert.equal(warn.mock.callCount(), 1);
});

test("the fallback's fetchJSON throws on a non-2xx answer", async (t) => {
  t.mock.method(console, "warn", () => {});
  const f = (() => Promise.resolve(new Response("no", { status: 500 }))) as unknown as typeof fetch;
  const early = createEarly(f, memoryStorage(), undefined);
  early.fail(new Error("gone"));
  await assert.rejects(early.api.fetchJSON("/api/x"), /HTTP 500/);
});

test("retry() before the facade follows the facade's rule with the default trip statuses", () => {
  const early = createEarly(plainFetch().f, memoryStorage(), undefined);
  const http = (httpStatus: number) => new GatewayHttpError({ status: httpStatus, httpStatus, circuitOpen: false, until: null, url: "/api/x" });
  assert.equal(early.api.retry(0, http(400)), false);
  assert.equal(early.api.retry(0, http(502)), false);
  assert.equal(early.api.retry(0, http(500)), true);
  assert.equal(early.api.retry(0, new TypeError("network")), true);
  assert.equal(early.api.retry(3, new TypeError("network")), false);
  assert.equal(early.api.isGatewayError(http(500)), true);
});
