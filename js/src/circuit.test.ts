// The facade's jobs against a scripted engine and a recording fetch: no
// browser, no wasm. Each test is a defect that once lived here.

import assert from "node:assert/strict";
import { test } from "node:test";
import { MemoryStorage } from "../test/memory-storage.js";
import { FakeEngine, Kind, Quiet, type Script } from "../test/fake-engine.js";
import { Code } from "./abi.gen.js";
import { createCircuit, withoutQueries } from "./circuit.js";
import { createGatewayCircuit } from "../test/facade-api.js";
import { createApi } from "./api.js";
import { readGoOptions, readOptions } from "./config.js";
import { createGoPath } from "./gopath.js";
import { GO_COUNTED, JS_COUNTED, type Metrics, noMetrics } from "./metrics.gen.js";
import { SCOUT_KEY } from "./policy.gen.js";

const base = "http://app.test/page";

/** A fetch that records each call and answers when the test says so; it honours the signal like fetch. */
function recordingFetch() {
  const sent: { url: string; method: string; body: string | null; init: RequestInit | undefined; answer(res: Response): void; fail(e: unknown): void }[] = [];
  const fetchFn = ((input: RequestInfo | URL, init?: RequestInit) =>
    new Promise<Response>((resolve, reject) => {
      const req = new Request(typeof input === "string" ? new URL(input, base).href : input instanceof URL ? input.href : input, init); // rejects what fetch rejects
      if (req.signal.aborted) return reject(req.signal.reason);
      req.signal.addEventListener("abort", () => reject(req.signal.reason));
      void (req.body ? req.text() : Promise.resolve(null)).then((body) =>
        sent.push({ url: req.url, method: req.method, body, init, answer: resolve, fail: reject }),
      );
    })) as typeof fetch;
  return { fetchFn, sent };
}


async function facade(
  script: Script,
  attrs: Record<string, string> = {},
  started?: Promise<void>,
  storage: MemoryStorage | null = null,
  now?: () => number,
  reload = false,
) {
  const engine = new FakeEngine(script);
  const { fetchFn, sent } = recordingFetch();
  const data = { wasm: "/m.wasm", scope: "/api/", ...attrs };
  const { options } = readOptions(data, base);
  const circuit = createCircuit(options, {
    fetch: fetchFn,
    storage,
    baseUrl: () => base,
    now,
    reload,
    start: async () => {
      await started;
      return { engine, options: "", createGoPath, readGoOptions };
    },
  }, data);
  const gc = createApi(() => circuit);
  if (!started) await gc.ready;
  return { gc, circuit, engine, sent };
}

const until = async (f: () => boolean) => {
  for (let i = 0; i < 3000 && !f(); i++) await new Promise((r) => setTimeout(r, 1));
  assert.ok(f(), "timed out");
};

test("abort then refetch of the same URL gets a fresh answer (StrictMode, TanStack cancel-then-refetch)", async () => {
  const { gc, sent } = await facade({ quiet: Quiet.Idle | Quiet.Coalesce });
  const ac = new AbortController();
  const first = gc.fetch("/api/me", { signal: ac.signal });
  ac.abort();
  await assert.rejects(first, { name: "AbortError" });
  const second = gc.fetch("/api/me");
  await until(() => sent.length === 2);
  sent[1]!.answer(new Response("fresh"));
  assert.equal(await (await second).text(), "fresh");
});

test("joiners keep their answer when the leader aborts during a 429 wait; Go hears no abort", async () => {
  let n = 0;
  const { gc, engine, sent } = await facade({
    begin: () => (n++ === 0 ? { kind: Kind.Send, flight: 9 } : { kind: Kind.Join, flight: 9 }),
    finish: (_t, status) => (status === 429 ? { retry: true, waitMs: 30 } : {}),
  });
  const leader = new AbortController();
  const lp = gc.fetch("/api/x", { headers: { a: "1" }, signal: leader.signal });
  const jp = gc.fetch("/api/x", { headers: { a: "1" } });
  await until(() => sent.length === 1);
  sent[0]!.answer(new Response("", { status: 429, headers: { "retry-after": "1" } }));
  await new Promise((r) => setTimeout(r, 5));
  leader.abort();
  await assert.rejects(lp, { name: "AbortError" });
  await until(() => sent.length === 2);
  sent[1]!.answer(new Response("after the wait"));
  assert.equal(await (await jp).text(), "after the wait");
  assert.ok(!engine.calls.some((c) => c.startsWith("abort")), engine.calls.join(", "));
});

test("a mutation that is the half-open probe releases the requests waiting for it", async () => {
  let n = 0;
  const { gc, sent } = await facade({
    begin: (method) => (method === "POST" ? { kind: Kind.Send, probe: 7 } : n++ === 0 ? { kind: Kind.Wait, probe: 7, probeTimeoutMs: 30_000 } : { kind: Kind.Send }),
  });
  const post = gc.fetch("/api/orders", { method: "POST", body: "{}" });
  const get = gc.fetch("/api/list", { headers: { a: "1" } });
  await until(() => sent.length === 1);
  sent[0]!.answer(new Response("created", { status: 201 }));
  assert.equal((await post).status, 201);
  await until(() => sent.length === 2);
  sent[1]!.answer(new Response("list"));
  assert.equal(await (await get).text(), "list");
});

test("out-of-scope requests are untouched on the quiet path: never coalesced", async () => {
  const { gc, sent } = await facade({ quiet: Quiet.Idle | Quiet.Coalesce });
  const ps = [1, 2, 3, 4].map(() => gc.fetch("http://elsewhere.test/x"));
  await until(() => sent.length === 4);
  for (const s of sent) s.answer(new Response("x"));
  await Promise.all(ps);
});

test("a pre-aborted signal sends nothing and rejects with its reason", async () => {
  const { gc, engine, sent } = await facade({});
  const reason = new DOMException("stop", "AbortError");
  await assert.rejects(gc.fetch("/api/x", { signal: AbortSignal.abort(reason) }), (e) => e === reason);
  await assert.rejects(gc.fetch("/api/x", { method: "POST", body: "{}", signal: AbortSignal.abort(reason) }), (e) => e === reason);
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(sent.length, 0);
  assert.deepEqual(engine.calls, [], "nothing was decided");
});

test("a mutation whose signal aborts while its body is read is rejected with the reason at once; nothing goes out, its key is kept", async () => {
  const { gc, engine, sent } = await facade({});
  const ac = new AbortController();
  const reason = new DOMException("timed out", "TimeoutError");
  const p = gc.fetch("/api/orders", { method: "POST", body: new Blob(['{"n":1}']), signal: ac.signal });
  ac.abort(reason); // while the shim reads the body for its key
  await assert.rejects(p, (e) => e === reason);
  await until(() => engine.calls.some((c) => c.startsWith("idemFinish")));
  assert.deepEqual(engine.calls.slice(-3), ["idemBegin", "abort 1", "idemFinish POST /x k1 0"], "unanswered: a retry reuses the key");
  assert.equal(sent.length, 0);
});

test("what fetch rejects is a rejected promise, never a synchronous throw", async () => {
  const { gc } = await facade({});
  const calls = [
    () => gc.fetch("/api/x", { headers: { b: "b\nc" } }),
    () => gc.fetch("/api/x", { headers: 5 as unknown as HeadersInit }),
    () => gc.fetch({ toString: () => { throw new Error("no") } } as unknown as string),
    () => gc.fetch("http://[bad/"),
  ];
  for (const call of calls) {
    let p: Promise<Response> | undefined;
    assert.doesNotThrow(() => {
      p = call();
    });
    await assert.rejects(p!);
  }
});

test("a Request's body is sent again on a retry after a 429", async () => {
  const { gc, sent } = await facade(
    { begin: () => ({ keyed: false }), finish: (_t, status) => (status === 429 ? { retry: true, waitMs: 1 } : {}) },
    { idempotency: "off" }, // (Go keys nothing then)
  );
  const p = gc.fetch(new Request("http://app.test/api/orders", { method: "POST", body: '{"n":1}' }));
  await until(() => sent.length === 1);
  sent[0]!.answer(new Response("", { status: 429, headers: { "retry-after": "1" } }));
  await until(() => sent.length === 2);
  assert.equal(sent[1]!.body, '{"n":1}');
  sent[1]!.answer(new Response("ok", { status: 201 }));
  assert.equal((await p).status, 201);
});

test("an opaque answer is reported as such, not as a failure", async () => {
  const { gc, engine, sent } = await facade({});
  const p = gc.fetch("/api/x", { mode: "no-cors" });
  await until(() => sent.length === 1);
  const opaque = Response.error(); // type "error": status 0, like an opaque answer to the page
  Object.defineProperty(opaque, "type", { value: "opaque" });
  sent[0]!.answer(opaque);
  await p;
  assert.ok(engine.calls.includes("finish 1 -1"), engine.calls.join(", "));
});

test("Go is given every answer's Retry-After and Cache-Control: which ones count is its rule", async () => {
  const { gc, engine, sent } = await facade({});
  const headers = { "retry-after": "30", "cache-control": "max-age=5" };
  const ps = [502, 404].map((status, i) => gc.fetch(`/api/${i}`, { method: "PUT" }).then(() => status));
  await until(() => sent.length === 2);
  sent[0]!.answer(new Response("", { status: 502, headers }));
  sent[1]!.answer(new Response("", { status: 404, headers }));
  await Promise.all(ps);
  assert.deepEqual(
    engine.answered.sort((a, b) => a.status - b.status),
    [404, 502].map((status) => ({ status, retryAfter: "30", cacheControl: "max-age=5" })),
  );
});

test("metrics count what went to the network, the quiet path included", async () => {
  const { gc, sent } = await facade({ quiet: Quiet.Idle | Quiet.Coalesce });
  const ps = [gc.fetch("/api/a"), gc.fetch("/api/a"), gc.fetch("/api/b")];
  await until(() => sent.length === 2);
  for (const s of sent) s.answer(new Response("x"));
  await Promise.all(ps);
  const m = gc.metrics();
  assert.equal(m.network, 2);
  assert.equal(m.coalesced, 1);
});

/** calls = answeredLocally + passedThrough + network - retries, once nothing waits. */
function assertAddsUp(m: ReturnType<import("./types.js").GatewayCircuit["metrics"]>) {
  assert.equal(m.calls, m.answeredLocally + m.passedThrough + m.network - m.retries, JSON.stringify(m));
}

test("metrics count every call once: the quiet path, out of scope, aborted, and what Go answers", async () => {
  let quiet = Quiet.Idle | Quiet.Coalesce;
  const engine = await facade({
    get quiet() {
      return quiet;
    },
    begin: (_m, url) => (url.endsWith("/open") ? { kind: Kind.Open, untilMs: Date.now() + 1000, status: 502 } : { kind: Kind.Send }),
  });
  const { gc, sent } = engine;
  // The quiet path: two calls share one request, a third has its own.
  const quietCalls = [gc.fetch("/api/a"), gc.fetch("/api/a"), gc.fetch("/api/b")];
  // Out of scope, and an aborted signal: handed to fetch untouched.
  const outside = gc.fetch("http://elsewhere.test/x");
  await assert.rejects(gc.fetch("/api/c", { signal: AbortSignal.abort() }));
  await until(() => sent.length === 3);
  for (const s of sent) s.answer(new Response("x"));
  await Promise.all([...quietCalls, outside]);
  // Go decides again (not quiet): an open circuit answers without the network.
  quiet = 0;
  assert.equal((await gc.fetch("/api/open")).status, 503);
  assert.equal((await gc.fetch("/api/open")).status, 503);
  const m = gc.metrics();
  assert.deepEqual(
    { calls: m.calls, network: m.network, answeredLocally: m.answeredLocally, passedThrough: m.passedThrough, coalesced: m.coalesced },
    { calls: 7, network: 2, answeredLocally: 3, passedThrough: 2, coalesced: 1 },
  );
  assertAddsUp(m);
});

test("metrics count a call that waited for the probe once, and what the gate answered before the wasm runs", async () => {
  const storage = new MemoryStorage();
  storage.setItem("gateway_circuit_v1", `{"until":${Date.now() + 60_000},"httpStatus":502}`);
  let start!: () => void;
  let n = 0;
  const { gc, sent } = await facade(
    { begin: () => (n++ === 1 ? { kind: Kind.Wait, probe: 3, probeTimeoutMs: 30_000 } : { kind: Kind.Send, probe: n === 1 ? 3 : 0 }) },
    {},
    new Promise<void>((r) => (start = r)),
    storage,
  );
  assert.equal((await gc.fetch("/api/x")).status, 503, "the gate answers from the stored circuit");
  assert.equal(gc.metrics().answeredLocally, 1);
  gc.clear();
  start();
  await gc.ready;
  const probe = gc.fetch("/api/p", { headers: { a: "1" } });
  const waiter = gc.fetch("/api/w", { headers: { a: "1" } });
  await until(() => sent.length === 1);
  sent[0]!.answer(new Response("ok"));
  await until(() => sent.length === 2);
  sent[1]!.answer(new Response("ok"));
  await Promise.all([probe, waiter]);
  const m = gc.metrics();
  assert.equal(m.calls, 3, "the waiter decided twice, and is one call");
  assert.equal(m.network, 2);
  assertAddsUp(m);
});

test("metrics count idempotency refusals as answered locally", async () => {
  const { gc, sent } = await facade({ idemBegin: () => ({ code: Code.KeyReused, message: "reused" }) });
  assert.equal((await gc.fetch("/api/orders", { method: "POST", body: "{}" })).status, 422);
  const m = gc.metrics();
  assert.equal(sent.length, 0);
  assert.deepEqual([m.calls, m.idempotencyRefused, m.answeredLocally, m.network], [1, 1, 1, 0]);
  assertAddsUp(m);
});

test("metrics give every counter Go declares: Go's count, the shim's, or their sum", async () => {
  const goCount = (i: number) => 1000 * (i + 1);
  const { gc, sent } = await facade({ quiet: Quiet.Idle | Quiet.Coalesce, metric: goCount });
  const ps = [gc.fetch("/api/a"), gc.fetch("/api/a")];
  await until(() => sent.length === 1);
  sent[0]!.answer(new Response("x"));
  await Promise.all(ps);
  const m = gc.metrics();
  assert.deepEqual(Object.keys(m).sort(), Object.keys(noMetrics()).sort());
  const shim: Partial<Metrics> = { calls: 2, network: 1, coalesced: 1, answeredLocally: 1 };
  for (const [name, i] of GO_COUNTED) assert.equal(m[name], goCount(i) + (shim[name] ?? 0), name);
  for (const name of JS_COUNTED) if (!GO_COUNTED.some(([n]) => n === name)) assert.equal(m[name], shim[name] ?? 0, name);
  assert.ok(GO_COUNTED.some(([n]) => n === "decisions") && JS_COUNTED.includes("coalesced"));
});

test("a mutation made before the wasm runs waits for it, and gets its key from Go", async () => {
  let start!: () => void;
  const { gc, engine, sent } = await facade({}, {}, new Promise<void>((r) => (start = r)));
  const post = gc.fetch("/api/orders", { method: "POST", body: '{"n":1}' });
  const get = gc.fetch("/api/list");
  await until(() => sent.length === 1);
  assert.equal(sent[0]!.url, "http://app.test/api/list", "a GET does not wait");
  start();
  await until(() => sent.length === 2);
  assert.ok(engine.calls.includes("idemBegin"), engine.calls.join(", "));
  for (const s of sent) s.answer(new Response("ok"));
  await Promise.all([post, get]);
});

test("a request the gate holds for Go hurries the engine's load (not after the page); one it sends does not", async () => {
  for (const [stored, call, hurries] of [
    [false, ["/api/list", {}], false],
    [false, ["/api/orders", { method: "POST", body: "{}" }], true],
    [true, ["/api/list", {}], true],
  ] as const) {
    const storage = new MemoryStorage();
    const t = Date.now();
    if (stored) storage.setItem("gateway_circuit_v1", `{"until":${t - 1000},"httpStatus":502,"halfOpenUntil":${t + 60_000}}`);
    const { fetchFn } = recordingFetch();
    let hurried = 0;
    const data = { wasm: "/m.wasm", scope: "/api/" };
    const circuit = createCircuit(
      readOptions(data, base).options,
      { fetch: fetchFn, storage, baseUrl: () => base, start: () => new Promise(() => {}), hurry: () => hurried++ },
      data,
    );
    const ac = new AbortController();
    const p = circuit.fetch(call[0], { ...call[1], signal: ac.signal }).catch((e: unknown) => e);
    assert.equal(hurried > 0, hurries, `${call[0]} ${JSON.stringify(call[1])}, half-open stored: ${stored}`);
    ac.abort(); // what it waits for ends
    await p;
  }
});

test("half-open after a reload: requests wait for Go, which sends one probe", async () => {
  const storage = new MemoryStorage();
  const t = Date.now();
  storage.setItem("gateway_circuit_v1", `{"until":${t - 1000},"httpStatus":502,"strikes":1,"halfOpenUntil":${t + 60_000}}`);
  let start!: () => void;
  let n = 0;
  const { gc, engine, sent } = await facade(
    { begin: () => (n++ === 0 ? { kind: Kind.Send, probe: 3 } : n <= 3 ? { kind: Kind.Wait, probe: 3, probeTimeoutMs: 30_000 } : { kind: Kind.Send }) },
    {},
    new Promise<void>((r) => (start = r)),
    storage,
  );
  assert.equal(gc.blocking().halfOpen, true, "visible before Go runs");
  assert.equal(gc.read(), null, "not armed");
  const ps = [gc.fetch("/api/a"), gc.fetch("/api/b"), gc.fetch("/api/c")];
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(sent.length, 0, "nothing goes out before Go picks the probe");
  start();
  await until(() => sent.length === 1);
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(sent.length, 1, "one probe");
  assert.equal(engine.calls.filter((c) => c.startsWith("begin")).length, 3);
  sent[0]!.answer(new Response("back"));
  await until(() => sent.length === 3); // the waiters go again once the probe is answered
  for (const s of sent.slice(1)) s.answer(new Response("x"));
  await Promise.all(ps);
});

test("an open circuit stored with its scouting (SCOUT_KEY): requests wait for Go, which picks the scout; without it, or after F5, they are answered open at once", async () => {
  for (const [scouting, reload] of [[true, false], [false, false], [true, true]] as const) {
    const storage = new MemoryStorage();
    const t = Date.now();
    storage.setItem("gateway_circuit_v1", `{"until":${t + 60_000},"httpStatus":502,"halfOpenUntil":${t + 660_000}}`);
    if (scouting) storage.setItem(SCOUT_KEY, `${t + 60_000} 0 !k0`);
    let start!: () => void;
    const { gc, engine, sent } = await facade({ begin: () => ({ kind: Kind.Send, probe: 1 }) }, {}, new Promise<void>((r) => (start = r)), storage, undefined, reload);
    let settled = false;
    const p = gc.fetch("/api/healthy").then((r) => ((settled = true), r));
    await new Promise((r) => setTimeout(r, 10));
    const waits = scouting && !reload; // Go sends no scout on a reload (F5)
    assert.equal(settled, !waits, waits ? "it waits for Go" : "answered at once");
    start();
    if (waits) {
      await until(() => sent.length === 1);
      assert.ok(engine.calls.some((c) => c.startsWith("begin")), engine.calls.join(", "));
      sent[0]!.answer(new Response("ok"));
      assert.equal((await p).status, 200);
    } else {
      assert.equal((await p).status, 503);
      assert.equal(sent.length, 0);
    }
  }
});

test("pauses are visible: blocking() and the subscribers say what, until when, and who asked", async () => {
  const t = Date.now();
  const { gc } = await facade({ pauses: `${t + 5000} 1 http://app.test/api/\n${t + 60_000} 2 http://app.test/api/slow/\nretry-after http://app.test/api/slow/\n` });
  const seen: unknown[] = [];
  gc.subscribe((_s, b) => seen.push(b.pauses.length));
  await Promise.resolve(); // the restore notification
  const b = gc.blocking();
  assert.deepEqual(b.pauses, [
    { service: "http://app.test/api/", until: t + 5000, serverAsked: false },
    { service: "http://app.test/api/slow/", until: t + 60_000, serverAsked: true },
  ]);
  assert.ok(seen.includes(2));
});

test("a quiet-path success is reported, with when it was sent and answered, before a failure (which carries its own send time)", async () => {
  let t = 1000;
  const { gc, engine, sent } = await facade({ quiet: Quiet.Idle | Quiet.Coalesce }, {}, undefined, null, () => t);
  const ok = gc.fetch("/api/a");
  await until(() => sent.length === 1);
  t = 1040;
  sent[0]!.answer(new Response("ok"));
  await ok;
  assert.ok(!engine.calls.some((c) => c.startsWith("succeeded")), "a success alone costs no call");
  t = 1300;
  const bad = gc.fetch("/api/b");
  await until(() => sent.length === 2);
  t = 1320;
  sent[1]!.answer(new Response("", { status: 503 }));
  await bad;
  const i = engine.calls.indexOf("succeeded 1000-1040");
  assert.ok(i >= 0 && engine.calls[i + 1] === "adopt http://app.test/api/b sent 1300", engine.calls.join(", "));
});

test("a call sent before Go ran is observed with when it was sent and answered", async () => {
  let t = 1000;
  let start!: () => void;
  const { gc, engine, sent } = await facade({}, {}, new Promise<void>((r) => (start = r)), null, () => t);
  const p = gc.fetch("/api/a");
  await until(() => sent.length === 1);
  t = 1250;
  sent[0]!.answer(new Response("", { status: 502 }));
  await p;
  t = 5000;
  start();
  await gc.ready;
  await until(() => engine.calls.some((c) => c.startsWith("observe")));
  assert.ok(engine.calls.includes("observe GET http://app.test/api/a 502 1000-1250"), engine.calls.join(", "));
});

test("a quiet-path success that comes after Go stopped being quiet is reported at once (it may withdraw a trip)", async () => {
  const { gc, engine, sent } = await facade({ quiet: Quiet.Idle | Quiet.Coalesce });
  const ok = gc.fetch("/api/a"); // sent on the quiet path
  await until(() => sent.length === 1);
  engine.script.quiet = 0; // meanwhile a failure of the same burst armed the circuit
  let reads = 0;
  const status = engine.status.bind(engine);
  engine.status = () => (reads++, status());
  sent[0]!.answer(new Response("ok"));
  await ok;
  assert.equal(engine.calls.filter((c) => c.startsWith("succeeded")).length, 1, engine.calls.join(", "));
  assert.ok(reads > 0, "the state is read again, so the subscribers learn of a withdrawn trip");
});

test("forget (logout): a request in flight is not joined by the next user", async () => {
  const { gc, engine, sent } = await facade({ quiet: Quiet.Idle | Quiet.Coalesce });
  const alice = gc.fetch("/api/me");
  gc.forget();
  const bob = gc.fetch("/api/me");
  await until(() => sent.length === 2);
  sent[0]!.answer(new Response("alice"));
  sent[1]!.answer(new Response("bob"));
  assert.equal(await (await alice).text(), "alice");
  assert.equal(await (await bob).text(), "bob");
  assert.ok(engine.calls.includes("forget"));
});

test("warnings never print a URL's query string", () => {
  assert.equal(
    withoutQueries("https://cdn.test/gc.wasm?token=secret: HTTP 404 (and /x.wasm?k=1)"),
    "https://cdn.test/gc.wasm?…: HTTP 404 (and /x.wasm?…)",
  );
});

test("quiet path: callers who joined a lead without a signal share its answer, a retried one too, and may leave alone", async () => {
  const { gc, engine, sent } = await facade({ quiet: Quiet.Idle | Quiet.Coalesce, finish: (_t, status) => (status === 429 ? { retry: true, waitMs: 5 } : {}) });
  const leader = gc.fetch("/api/x"); // no signal: fetch's own answer, no flight
  const leaving = new AbortController();
  const gone = gc.fetch("/api/x", { signal: leaving.signal });
  const joiner = gc.fetch("/api/x", { signal: new AbortController().signal });
  leaving.abort();
  await assert.rejects(gone, { name: "AbortError" });
  await until(() => sent.length === 1);
  sent[0]!.answer(new Response("", { status: 429, headers: { "retry-after": "1" } })); // handed to Go: it retries
  await until(() => sent.length === 2);
  const late = gc.fetch("/api/x"); // joins the retried request
  sent[1]!.answer(new Response("after the wait"));
  assert.deepEqual(await Promise.all([leader, joiner, late].map(async (p) => (await p).text())), ["after the wait", "after the wait", "after the wait"]);
  assert.ok(engine.calls.some((c) => c.startsWith("adopt")), engine.calls.join(", "));
  assert.equal(sent.length, 2);
  assert.equal(gc.metrics().coalesced, 3);
  // A success that changes nothing: the leader gets it, joiners a copy, and the next call sends again.
  const [a, b] = [gc.fetch("/api/y"), gc.fetch("/api/y")];
  await until(() => sent.length === 3);
  sent[2]!.answer(new Response("y"));
  assert.deepEqual(await Promise.all([a, b].map(async (p) => (await p).text())), ["y", "y"]);
  const again = gc.fetch("/api/y");
  await until(() => sent.length === 4);
  sent[3]!.answer(new Response("y2"));
  assert.equal(await (await again).text(), "y2");
  assert.equal(gc.diagnostics().flights, 0);
});

test("before Go runs, an in-scope trip status arms the stored circuit at once; Go, once it runs, judges that answer again and may withdraw", async () => {
  let start = () => {};
  const started = new Promise<void>((r) => (start = r));
  const storage = new MemoryStorage();
  const { gc, engine, sent } = await facade({}, {}, started, storage);
  const heard: (number | null)[] = [];
  gc.subscribe((s) => heard.push(s?.httpStatus ?? null));
  await Promise.resolve(); // the state at subscribe time (nothing) is reported once
  heard.length = 0;
  const out = gc.fetch("https://cdn.test/lib.js"); // out of scope: arms nothing
  const bad = gc.fetch("/api/a");
  await until(() => sent.length === 2);
  sent[0]!.answer(new Response("", { status: 502 }));
  sent[1]!.answer(new Response("", { status: 502 }));
  await Promise.all([out, bad]);
  await until(() => gc.read() !== null);
  assert.equal(gc.read()!.httpStatus, 502);
  assert.ok(gc.read()!.until > Date.now() + 4_000, "for the first open period (5 s)");
  const provisional = storage.getItem("gateway_circuit_v1");
  assert.ok(provisional && JSON.parse(provisional).halfOpenUntil > 0, `stored as Go stores it: ${provisional}`);
  assert.deepEqual(heard, [502]);
  const calls: string[] = [];
  engine.reload = () => (calls.push(`reload, stored: ${storage.getItem("gateway_circuit_v1")}`), 0);
  engine.observe = (_now, _sent, _answered, status, method, url) => (calls.push(`observe ${method} ${url} ${status}`), false);
  start();
  await gc.ready;
  assert.deepEqual(calls, ["reload, stored: null", "observe GET http://app.test/api/a 502"], "withdrawn, then judged by Go");
  assert.equal(gc.read(), null, "this Go (a fake) did not arm again");
  assert.deepEqual(heard, [502, null]);
});

test("Go does not withdraw a circuit the app armed (or cleared) after the early rule's", async () => {
  let start = () => {};
  const started = new Promise<void>((r) => (start = r));
  const storage = new MemoryStorage();
  const { gc, engine, sent } = await facade({}, {}, started, storage);
  const bad = gc.fetch("/api/a");
  await until(() => sent.length === 1);
  sent[0]!.answer(new Response("", { status: 503 }));
  await bad;
  await until(() => gc.read() !== null);
  gc.arm(500, 60_000);
  let reloads = 0;
  engine.reload = () => (reloads++, 0);
  start();
  await gc.ready;
  assert.equal(reloads, 0);
  assert.equal(JSON.parse(storage.getItem("gateway_circuit_v1")!).httpStatus, 500);
});

test("with data-trip-min-failures above 1, the early rule arms nothing: Go's rule would not arm on one failure", async () => {
  const storage = new MemoryStorage();
  const { gc, sent } = await facade({}, { tripMinFailures: "3" }, new Promise(() => {}), storage);
  const bad = gc.fetch("/api/a");
  await until(() => sent.length === 1);
  sent[0]!.answer(new Response("", { status: 502 }));
  await bad; // learnt from before the caller gets it
  assert.equal(gc.read(), null);
});

test("before Go runs, a circuit whose TTL is over reads as half-open, as Go reads it, and stays stored for the probe", () => {
  let t = 1_000_000;
  const storage = new MemoryStorage();
  storage.setItem("gateway_circuit_v1", JSON.stringify({ until: t + 1000, httpStatus: 502, halfOpenUntil: t + 60_000 }));
  const data = { wasm: "/m.wasm", scope: "/api/" };
  const gc = createGatewayCircuit(
    readOptions(data, base).options,
    { fetch: recordingFetch().fetchFn, storage, baseUrl: () => base, now: () => t, start: () => new Promise(() => {}) },
    data,
  );
  assert.equal(gc.read()?.httpStatus, 502);
  t += 2000;
  assert.equal(gc.read(), null);
  assert.equal(gc.blocking().halfOpen, true);
  assert.ok(storage.getItem("gateway_circuit_v1"), "kept: the next request is the one probe");
});

test("deadline: a request the gateway does not answer in time is aborted, rejects with a TimeoutError, and Go counts a 504", async () => {
  const { gc, engine, sent } = await facade({ quiet: Quiet.Idle | Quiet.Coalesce }, { timeoutMs: "30" });
  const hanging = gc.fetch("/api/hangs"); // the quiet path
  const joined = gc.fetch("/api/hangs");
  await assert.rejects(hanging, { name: "TimeoutError" });
  await assert.rejects(joined, { name: "TimeoutError" });
  assert.equal(sent.length, 1);
  assert.ok(engine.calls.some((c) => c.startsWith("adopt http://app.test/api/hangs")), engine.calls.join(", "));
  assert.ok(engine.calls.some((c) => / 504$/.test(c) && c.startsWith("finish")), engine.calls.join(", "));
  const decided = gc.fetch("/api/x", { headers: { "x-a": "1" } }); // through Begin
  await assert.rejects(decided, { name: "TimeoutError" });
  assert.equal(engine.calls.filter((c) => c.startsWith("finish") && c.endsWith(" 504")).length, 2, engine.calls.join(", "));
});

test("deadline: a call's own timeout overrides the page's; false means none; an answer in time is untouched", async () => {
  const { gc, engine, sent } = await facade({ quiet: Quiet.Idle }, { timeoutMs: "20" });
  const patient = gc.fetch("/api/a", { timeout: false } as RequestInit);
  const longer = gc.fetch("/api/b", { timeout: 60_000 } as RequestInit);
  await new Promise((r) => setTimeout(r, 60));
  await until(() => sent.length === 2);
  sent[0]!.answer(new Response("a"));
  sent[1]!.answer(new Response("b"));
  assert.equal(await (await patient).text(), "a");
  assert.equal(await (await longer).text(), "b");
  assert.ok(!engine.calls.some((c) => c.endsWith(" 504")), engine.calls.join(", "));
});

test("deadline: before Go runs too, and Go learns the request failed as a 504", async () => {
  let start!: () => void;
  const { gc, engine } = await facade({}, { timeoutMs: "20" }, new Promise<void>((r) => (start = r)));
  await assert.rejects(gc.fetch("/api/hangs"), { name: "TimeoutError" });
  start();
  await gc.ready;
  await until(() => engine.calls.some((c) => c.startsWith("observe")));
  assert.ok(engine.calls.some((c) => c.startsWith("observe GET http://app.test/api/hangs 504")), engine.calls.join(", "));
});

test("a call with no deadline (timeout: false) sent before Go runs is learnt from too: the early rule arms on its 502, and Go judges it", async () => {
  let start!: () => void;
  const storage = new MemoryStorage();
  const { gc, engine, sent } = await facade({}, {}, new Promise<void>((r) => (start = r)), storage);
  const p = gc.fetch("/api/x", { timeout: false } as RequestInit);
  await until(() => sent.length === 1);
  sent[0]!.answer(new Response("down", { status: 502 }));
  assert.equal((await p).status, 502);
  await until(() => gc.read() !== null);
  assert.equal(gc.read()!.httpStatus, 502, "armed by the early rule");
  start();
  await gc.ready;
  await until(() => engine.calls.some((c) => c.startsWith("observe")));
  assert.ok(engine.calls.some((c) => c.startsWith("observe GET http://app.test/api/x 502")), engine.calls.join(", "));
});

test("slow is not down: with no deadline set, a late answer is the caller's, untouched, and Go hears a success, not a 504", async () => {
  const { gc, engine, sent } = await facade({ quiet: Quiet.Idle });
  const report = gc.fetch("/api/report", { headers: { "x-a": "1" } }); // through Begin
  const quiet = gc.fetch("/api/cards"); // the quiet path
  await until(() => sent.length === 2);
  assert.ok(sent.every((r) => r.init?.signal === undefined), "no signal of the module's");
  await new Promise((r) => setTimeout(r, 50));
  sent[0]!.answer(new Response("report"));
  sent[1]!.answer(new Response("cards"));
  assert.equal(await (await report).text(), "report");
  assert.equal(await (await quiet).text(), "cards");
  assert.ok(!engine.calls.some((c) => c.endsWith(" 504") || c.startsWith("arm")), engine.calls.join(", "));
});

/** The facade with Go held back until start() (storage in memory), its clock at t. */
async function beforeGo(clock = { t: 1_000 }) {
  let start!: () => void;
  const started = new Promise<void>((r) => (start = r));
  return { ...(await facade({}, {}, started, new MemoryStorage(), () => clock.t)), start };
}

test("an answer given before Go runs is handed to Go with the time it came, not the time Go started", async () => {
  const clock = { t: 1_000 };
  const { gc, engine, sent, start } = await beforeGo(clock);
  const answer = gc.fetch("/api/a");
  await until(() => sent.length === 1);
  sent[0]!.answer(new Response("", { status: 429, headers: { "retry-after": "1" } }));
  await answer;
  clock.t = 4_000; // Go starts 3 s later: a pause counted from now would outlast the server's 1 s
  start();
  await gc.ready;
  await until(() => engine.observed.length === 1);
  assert.deepEqual(engine.observed, [{ now: 1_000, status: 429 }]);
});

test("before Go runs, a mutation's 502 arms nothing (as in Go); a GET's does (the early rule)", async () => {
  let start!: () => void;
  const { gc, sent } = await facade({}, { idempotency: "off" }, new Promise<void>((r) => (start = r)), new MemoryStorage());
  const post = gc.fetch("/api/orders", { method: "POST", body: "{}" }); // no key to wait for: sent at once
  await until(() => sent.length === 1);
  sent[0]!.answer(new Response("down", { status: 502 }));
  assert.equal((await post).status, 502);
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(gc.read(), null, "a mutation's failure is the caller's");
  const get = gc.fetch("/api/a");
  await until(() => sent.length === 2);
  sent[1]!.answer(new Response("down", { status: 502 }));
  await get;
  await until(() => gc.read() !== null);
  assert.equal(gc.read()!.httpStatus, 502);
  start();
});

test("a call the tag's stand-in sent is handed to Go with the times it was sent and answered, not the time the facade took it over", async () => {
  const { circuit, engine, start } = await beforeGo({ t: 9_000 });
  const answer = Promise.resolve(new Response("", { status: 429, headers: { "retry-after": "1" } }));
  circuit.takeOver({ sent: [{ input: "/api/a", init: undefined, answer, sentAt: 1_500, answeredAt: 2_000 }], clear: false, forget: false });
  start();
  await circuit.ready;
  await until(() => engine.observed.length === 1);
  assert.deepEqual(engine.observed, [{ now: 2_000, status: 429 }]); // answered 7 s before: the server's 1 s is over
  assert.ok(engine.calls.includes("observe GET http://app.test/api/a 429 1500-2000"), engine.calls.join(", "));
});

test("a call the tag's stand-in sent, answered late with a success, reaches Go as that success — never as a timeout", async () => {
  const { circuit, engine, start } = await beforeGo({ t: 9_000 });
  let answer!: (r: Response) => void;
  const call = { input: "/api/slow", init: undefined, answer: new Promise<Response>((r) => (answer = r)), sentAt: 100, answeredAt: 0 };
  circuit.takeOver({ sent: [call], clear: false, forget: false });
  start();
  await circuit.ready;
  await new Promise((r) => setTimeout(r, 30));
  call.answeredAt = 12_000;
  answer(new Response("ok"));
  await until(() => engine.calls.some((c) => c.startsWith("observe") || c.startsWith("finish")));
  assert.ok(engine.calls.includes("observe GET http://app.test/api/slow 200 100-12000"), engine.calls.join(", "));
});

test("clear() before Go runs: the answers that came before it are not handed to Go, which would arm again", async () => {
  const { gc, engine, sent, start } = await beforeGo({ t: Date.now() });
  const answer = gc.fetch("/api/a");
  await until(() => sent.length === 1);
  sent[0]!.answer(new Response("", { status: 503 }));
  await answer;
  assert.ok(gc.read(), "armed before Go by the early rule");
  gc.clear(); // the overlay's "try again"
  assert.equal(gc.read(), null);
  start();
  await gc.ready;
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(engine.observed, []);
});
