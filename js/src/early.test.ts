import assert from "node:assert/strict";
import { test } from "node:test";
import { createGatewayCircuit } from "../test/facade-api.js";
import { type DataAttributes, readOptions } from "./config.js";
import { createEarly as createEarlyAt } from "./early.js";
import { GatewayHttpError } from "./errors.js";
import { COOLDOWN_KEY, STORAGE_KEY } from "./policy.gen.js";
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

const BASE = "http://app.test/page";
const createEarly = (f: typeof fetch, storage: Storage | null, data: DataAttributes = {}) => createEarlyAt(f, storage, data, BASE, Date.now);

const tick = () => new Promise((r) => setTimeout(r, 0));
const armedFor = (ms: number) => JSON.stringify({ until: Date.now() + ms, httpStatus: 502 });

test("with nothing stored, a GET goes out at once and is handed over; a mutation waits for the facade", async () => {
  const { f, sent } = plainFetch();
  const early = createEarly(f, memoryStorage());
  const got = await early.api.fetch("/api/a");
  assert.equal(await got.json(), "plain");
  const post = early.api.fetch("/api/orders", { method: "POST", body: "{}" });
  await tick();
  assert.deepEqual(sent, ["GET /api/a"], "the POST waits");
  const { facade, asked } = fakeFacade();
  const handover = early.adopt(facade)!;
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
    const early = createEarly(f, memoryStorage({ [key]: key === STORAGE_KEY ? armedFor(60_000) : `${Date.now() + 60_000} 1 http://app.test/\n` }));
    const p = early.api.fetch("/api/a");
    await tick();
    assert.deepEqual(sent, [], key);
    const { facade, asked } = fakeFacade();
    assert.deepEqual(early.adopt(facade)!.sent, []);
    await p;
    assert.deepEqual(asked, ["fetch /api/a"], key);
  }
});

test("before the facade, what the stored state does not block goes out at once: out of scope (any method), another service's GET", async () => {
  const { f, sent } = plainFetch();
  const pause = `${Date.now() + 60_000} 1 http://app.test/slow/\n`;
  const early = createEarly(f, memoryStorage({ [COOLDOWN_KEY]: pause }), { scope: "/api/, /slow/" });
  await early.api.fetch("https://analytics.test/collect", { method: "POST", body: "{}" });
  await early.api.fetch("/api/a");
  const paused = early.api.fetch("/slow/x");
  const mutation = early.api.fetch("/api/orders", { method: "POST", body: "{}" });
  await tick();
  assert.deepEqual(sent, ["POST https://analytics.test/collect", "GET /api/a"], "the paused service's GET and the mutation wait");
  const { facade, asked } = fakeFacade();
  assert.deepEqual(
    early.adopt(facade)!.sent.map((c) => String(c.input)),
    ["https://analytics.test/collect", "/api/a"],
  );
  await Promise.all([paused, mutation]);
  assert.deepEqual(asked, ["fetch /slow/x", "fetch /api/orders"]);
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
    const early = createEarly(plainFetch().f, memoryStorage(raw === null ? {} : { [STORAGE_KEY]: raw }));
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
  const early = createEarly(f, throwing);
  assert.equal(early.api.read(), null);
  await early.api.fetch("/api/a");
  assert.deepEqual(sent, ["GET /api/a"]);
});

test("arm() writes the stored format with the tag's TTL and checks its input as the facade does; clear() removes it and is done again by the facade", () => {
  const storage = memoryStorage();
  const early = createEarly(plainFetch().f, storage, { ttlMs: "30000" });
  const before = Date.now();
  const s = early.api.arm(503);
  assert.equal(s.httpStatus, 503);
  assert.ok(s.until >= before + 30_000 && s.until <= Date.now() + 30_000);
  assert.deepEqual(JSON.parse(storage.map.get(STORAGE_KEY)!), { ...s, halfOpenUntil: s.until + 120_000 }, "as Go's Arm stores it");
  assert.deepEqual(early.api.read(), s);
  assert.equal(early.api.arm(502, 1000).until <= Date.now() + 1000, true);
  assert.throws(() => early.api.arm(42), RangeError);
  assert.throws(() => early.api.arm(502, 0), RangeError);
  assert.throws(() => early.api.arm(502, Number.NaN), RangeError);
  early.api.clear();
  assert.equal(storage.map.has(STORAGE_KEY), false);
  const { facade, asked } = fakeFacade();
  const handover = early.adopt(facade)!;
  assert.equal(handover.clear, true);
  assert.deepEqual(asked, [], "the facade's file calls clear() with the handover");
});

test("subscribers are handed to the facade; one that left before does not arrive, one that leaves after leaves the facade", () => {
  const early = createEarly(plainFetch().f, memoryStorage());
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

test("after adopt the same object asks the facade: every call, methods taken before included", async () => {
  const early = createEarly(plainFetch().f, memoryStorage());
  const api = early.api;
  const earlyFetch = api.fetch;
  const { facade, asked } = fakeFacade();
  early.adopt(facade);
  assert.equal(api.ready, facade.ready);
  assert.equal(api.status, "loading");
  await api.fetch("/api/after");
  await earlyFetch("/api/held-early"); // a method taken before still reaches the facade
  assert.equal(api.read(), null);
  assert.deepEqual(asked, ["fetch /api/after", "fetch /api/held-early", "read"]);
});

test("without the facade's file: waiting calls and later ones go to the plain fetch, ready rejects, one warning", async (t) => {
  const warn = t.mock.method(console, "warn", () => {});
  const { f, sent } = plainFetch();
  const early = createEarly(f, memoryStorage());
  const waiting = early.api.fetch("/api/a", { method: "POST" });
  const json = early.api.fetchJSON("/api/b", { method: "PUT" });
  early.fail("/x/gateway-circuit-facade.abc.js did not load");
  early.fail("again");
  assert.equal((await waiting).status, 200);
  assert.equal(await json, "plain");
  await early.api.fetch("/api/c");
  assert.deepEqual(sent, ["POST /api/a", "PUT /api/b", "GET /api/c"]);
  assert.equal(early.api.status, "fallback");
  await assert.rejects(early.api.ready, /did not load/);
  assert.equal(warn.mock.callCount(), 1);
  early.fail("late"); // said once
  assert.equal(warn.mock.callCount(), 1);
  assert.equal(early.adopt(fakeFacade().facade), null, "a facade that comes after the failure is not taken");
});

test("without the facade's file a stored circuit or pause still answers in scope, before the network; out of scope goes out", async (t) => {
  t.mock.method(console, "warn", () => {});
  const { f, sent } = plainFetch();
  const pause = `${Date.now() + 60_000} 1 http://app.test/slow/\nretry-after http://app.test/slow/\n`;
  const storage = memoryStorage({ [STORAGE_KEY]: armedFor(60_000) });
  const early = createEarly(f, storage, { scope: "/api/, /slow/" });
  const held = early.api.fetch("/api/a");
  early.fail("gone");
  const res = await held;
  assert.deepEqual([res.status, res.headers.get("x-gateway-circuit")], [503, "open"]);
  await assert.rejects(early.api.fetchJSON("/api/b"), /HTTP 503/);
  assert.equal((await early.api.fetch("https://cdn.test/x.js")).status, 200);
  storage.map.delete(STORAGE_KEY);
  storage.map.set(COOLDOWN_KEY, pause);
  const cooled = await early.api.fetch("/slow/x");
  assert.deepEqual([cooled.status, cooled.headers.get("x-gateway-circuit")], [503, "cooldown"]);
  assert.equal((await early.api.fetch("/api/now")).status, 200, "the pause is the other service's");
  assert.deepEqual(sent, ["GET https://cdn.test/x.js", "GET /api/now"]);
  // fetchJSON counts too: it is a fetch. Five calls, two sent, three answered locally (one of them held until the failure).
  const m = early.api.metrics();
  assert.deepEqual([m.calls, m.network, m.answeredLocally], [5, 2, 3]);
});

test("the fallback's fetchJSON throws on a non-2xx answer", async (t) => {
  t.mock.method(console, "warn", () => {});
  const f = (() => Promise.resolve(new Response("no", { status: 500 }))) as unknown as typeof fetch;
  const early = createEarly(f, memoryStorage());
  early.fail("gone");
  await assert.rejects(early.api.fetchJSON("/api/x"), /HTTP 500/);
});

test("retry() before the facade follows the facade's rule before Go runs", () => {
  const early = createEarly(plainFetch().f, memoryStorage());
  const http = (httpStatus: number) => new GatewayHttpError({ status: httpStatus, httpStatus, circuitOpen: false, until: null, url: "/api/x" });
  assert.equal(early.api.retry(0, http(400)), false);
  assert.equal(early.api.retry(0, http(502)), true, "judged before the retry goes out");
  assert.equal(early.api.retry(0, new GatewayHttpError({ status: 503, httpStatus: 502, circuitOpen: true, until: null, url: "/api/x" })), false);
  assert.equal(early.api.retry(0, http(500)), true);
  assert.equal(early.api.retry(0, new TypeError("network")), true);
  assert.equal(early.api.retry(3, new TypeError("network")), false);
  assert.equal(early.api.isGatewayError(http(500)), true);
});

test("without the facade's file, retry() keeps the one rule: a pause the server asked for is retried once it ends, as in every phase", async (t) => {
  t.mock.method(console, "warn", () => {});
  const until = Date.now() + 5_000;
  const storage = memoryStorage({ [COOLDOWN_KEY]: `${until} 1 http://app.test/slow/\nretry-after http://app.test/slow/\n` });
  const early = createEarly(plainFetch().f, storage, { scope: "/slow/" });
  early.fail("gone");
  const answer = await early.api.fetch("/slow/x");
  assert.equal(answer.headers.get("x-gateway-circuit"), "cooldown");
  const cooled = (at: number) => new GatewayHttpError({ status: 503, httpStatus: 429, circuitOpen: true, until: at, url: "http://app.test/slow/x", reason: "cooldown" });
  assert.equal(early.api.retry(0, cooled(until)), true, "the server asked for 5 s: retried after it");
  assert.equal(early.api.retry(0, cooled(until + 1)), false, "another pause's answer");
});

// The stand-in and the facade (before Go runs) over the same storage and
// attributes, for each case where they once disagreed: both read the table
// Go publishes (policy.gen.ts) through the same code.
test("the stand-in agrees with the facade: clamps, half-open, pauses, arm()'s TTL", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] }); // the facade's expiry timers
  const now = Date.now();
  const pauseLine = (strikes: number) => `${now + 60_000} ${strikes} http://app.test/\nretry-after http://app.test/\n`;
  const cases: { name: string; data?: DataAttributes; stored?: Record<string, string>; arm?: [number, number?]; want: (b: ReturnType<GatewayCircuit["blocking"]>) => void }[] = [
    {
      name: "a stored until 10 years away is the maximum TTL (120 s) away",
      stored: { [STORAGE_KEY]: JSON.stringify({ until: now + 315_360_000_000, httpStatus: 502 }) },
      want: (b) => assert.ok(b.circuit!.until <= Date.now() + 120_000 && b.circuit!.until > now + 110_000),
    },
    {
      name: "… or data-max-ttl-ms away",
      data: { maxTtlMs: "60000" },
      stored: { [STORAGE_KEY]: JSON.stringify({ until: now + 315_360_000_000, httpStatus: 502 }) },
      want: (b) => assert.ok(b.circuit!.until <= Date.now() + 60_000 && b.circuit!.until > now + 50_000),
    },
    {
      name: "a stored half-open circuit",
      stored: { [STORAGE_KEY]: JSON.stringify({ until: now - 1000, httpStatus: 502, halfOpenUntil: now + 60_000 }) },
      want: (b) => assert.deepEqual([b.circuit, b.halfOpen], [null, true]),
    },
    {
      name: "a stored 429 pause the server asked for",
      stored: { [COOLDOWN_KEY]: pauseLine(1) },
      want: (b) => assert.deepEqual(b.pauses.map((p) => [p.service, p.serverAsked]), [["http://app.test/", true]]),
    },
    {
      name: "a cooldown line with more strikes than Go stores is skipped",
      stored: { [COOLDOWN_KEY]: pauseLine(65) },
      want: (b) => assert.deepEqual(b.pauses, []),
    },
    ...["1e3", "0x10", "-5", "1e400", "1.5", " "].map((ttlMs) => ({
      name: `arm(502) with data-ttl-ms=${JSON.stringify(ttlMs)}: Go refuses it, the default TTL`,
      data: { ttlMs },
      arm: [502] as [number],
      want: (b: ReturnType<GatewayCircuit["blocking"]>) => assert.ok(b.circuit!.until >= now + 5_000 && b.circuit!.until <= Date.now() + 5_000),
    })),
    {
      name: "data-ttl-ms=\"+30000\" is 30 s, as Go reads it",
      data: { ttlMs: "+30000" },
      arm: [502],
      want: (b) => assert.ok(b.circuit!.until >= now + 30_000 && b.circuit!.until <= Date.now() + 30_000),
    },
    {
      name: "data-ttl-ms over the maximum, arm(502, 1e12): the maximum",
      data: { ttlMs: "900000" },
      arm: [502, 1e12],
      want: (b) => assert.ok(b.circuit!.until >= now + 120_000 && b.circuit!.until <= Date.now() + 120_000),
    },
    {
      name: "… and arm(502) without a TTL",
      data: { ttlMs: "900000" },
      arm: [502],
      want: (b) => assert.ok(b.circuit!.until >= now + 120_000 && b.circuit!.until <= Date.now() + 120_000),
    },
  ];
  for (const c of cases) {
    const sides = {
      "stand-in": (storage: Storage) => createEarly(plainFetch().f, storage, c.data).api,
      facade: (storage: Storage) =>
        createGatewayCircuit(
          readOptions({ wasm: "/m.wasm", ...c.data }, BASE).options,
          { fetch: plainFetch().f, storage, baseUrl: () => BASE, start: () => new Promise(() => {}) },
          c.data,
        ),
    };
    for (const [side, make] of Object.entries(sides)) {
      const storage = memoryStorage(c.stored);
      const api = make(storage);
      if (c.arm) {
        api.arm(...c.arm);
        const stored = JSON.parse(storage.map.get(STORAGE_KEY)!);
        assert.ok(Number.isInteger(stored.until), `${side}: ${c.name}: stored ${storage.map.get(STORAGE_KEY)}`);
      }
      const b = api.blocking();
      try {
        c.want(b);
      } catch (e) {
        assert.fail(`${side}: ${c.name}: ${(e as Error).message} (${JSON.stringify(b)})`);
      }
      assert.deepEqual(api.read(), b.circuit, `${side}: ${c.name}: read()`);
    }
  }
});

test("a subscriber of the stand-in hears arm() and clear() at once", () => {
  const early = createEarly(plainFetch().f, memoryStorage());
  const heard: (number | null)[] = [];
  early.api.subscribe((s) => heard.push(s?.httpStatus ?? null));
  early.api.arm(503);
  assert.deepEqual(heard, [503]);
  early.api.clear();
  assert.deepEqual(heard, [503, null]);
});
