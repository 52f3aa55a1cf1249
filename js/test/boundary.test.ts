// The boundary, end to end: the built wasm (dist/gateway-circuit.wasm)
// driven through the real shim — the engine's file (engine-file.ts: Go's
// wasm_exec.js, the loader, the Go path) under the facade (circuit.ts) —
// in Node, against a fake network. Nothing of Go is scripted here: every
// decision kind and every flag comes from Go, read through the generated
// layouts, so a slot or a frame that the two sides read differently fails
// here (the unit tests run against a fake engine, which cannot see that).
// make test-boundary builds the wasm and runs it.

import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import "../src/engine-file.js";
import { createGatewayCircuit } from "./facade-api.js";
import { readOptions } from "../src/config.js";
import type { EngineFile } from "../src/engine-file.js";
import { MARKER_HEADER } from "../src/query.js";
import { SCOUT_KEY } from "../src/policy.gen.js";
import type { StorageLike } from "../src/storage.js";
import { MemoryStorage } from "./memory-storage.js";

const base = "http://app.test/page";
const wasm = WebAssembly.compile(readFileSync(process.env.GATEWAY_CIRCUIT_WASM ?? "dist/gateway-circuit.wasm"));
const engineFile = (globalThis as unknown as Record<symbol, EngineFile>)[Symbol.for("gatewaycircuit.engine")]!;

interface Sent {
  url: string;
  method: string;
  headers: Headers;
  /** The signal the shim passed to fetch (none: the caller's init had none and no deadline applies). */
  signal: AbortSignal | undefined;
  answer(res: Response): void;
}

/** A network that records each request and answers when the test says so (it honours the signal like fetch). */
class FakeNetwork {
  readonly sent: Sent[] = [];
  private waiting: (() => void)[] = [];

  readonly fetch = ((input: RequestInfo | URL, init?: RequestInit) =>
    new Promise<Response>((resolve, reject) => {
      const req = new Request(typeof input === "string" ? new URL(input, base).href : input instanceof URL ? input.href : input, init);
      if (req.signal.aborted) return reject(req.signal.reason);
      // Once answered, as fetch: it stops listening and keeps nothing of the answer.
      let settle: { resolve: (res: Response) => void; reject: (e: unknown) => void } | null = { resolve, reject };
      const onAbort = () => settle?.reject(req.signal.reason);
      req.signal.addEventListener("abort", onAbort);
      const answer = (res: Response) => {
        req.signal.removeEventListener("abort", onAbort);
        settle?.resolve(res);
        settle = null;
      };
      this.sent.push({ url: req.url, method: req.method, headers: req.headers, signal: init?.signal ?? undefined, answer });
      for (const w of this.waiting.splice(0)) w();
    })) as typeof fetch;

  /** The n-th request (from 1), once it was sent. */
  async nth(n: number): Promise<Sent> {
    while (this.sent.length < n) await new Promise<void>((r) => this.waiting.push(r));
    return this.sent[n - 1]!;
  }
}

/** The facade over the real engine, with attributes `attrs` and a clock the test moves; a page of the tab whose storage is `storage` (a reload of the one before it when `reload`). */
async function boot(attrs: Record<string, string> = {}, storage: StorageLike | null = null, reload = false) {
  const net = new FakeNetwork();
  const clock = { now: storage ? Date.now() : 1_700_000_000_000 }; // Go loads the stored state at Date.now() (engine.ts)
  const data = { wasm: "/m.wasm", scope: "/api/", ...attrs };
  const { options } = readOptions(data, base);
  const gc = createGatewayCircuit(
    options,
    { fetch: net.fetch, storage, reload, baseUrl: () => base, now: () => clock.now, start: (a) => engineFile.start(wasm, a) },
    data,
  );
  await gc.ready;
  assert.equal(gc.status, "ready", String(gc.error));
  return { gc, net, clock };
}

/** Headers make a GET leave the quiet path: Go decides it. */
const decided = { headers: { "x-test": "1" } };

const marker = (res: Response) => res.headers.get(MARKER_HEADER);

/** Waits for a condition the shim reaches on its own (a kept copy), polling its state. */
async function eventually(f: () => boolean) {
  for (let i = 0; i < 5000 && !f(); i++) await new Promise((r) => setTimeout(r, 1));
  assert.ok(f(), "never happened");
}

test("Send and Pass: in scope to the network; out of scope handed to fetch; each decided once", async () => {
  const { gc, net } = await boot();
  const a = gc.fetch("/api/a", decided);
  (await net.nth(1)).answer(new Response("a"));
  assert.equal(await (await a).text(), "a");
  const b = gc.fetch("http://other.test/b", decided);
  (await net.nth(2)).answer(new Response("b"));
  assert.equal(await (await b).text(), "b");
  const m = gc.metrics();
  assert.equal(m.decisions, 2);
  assert.equal(m.network, 1);
  assert.equal(m.passedThrough, 1);
});

test("Join: an identical request in flight is shared", async () => {
  const { gc, net } = await boot();
  const a = gc.fetch("/api/j", decided);
  const b = gc.fetch("/api/j", decided);
  (await net.nth(1)).answer(new Response("shared"));
  assert.equal(await (await a).text(), "shared");
  assert.equal(await (await b).text(), "shared");
  assert.equal(net.sent.length, 1);
  assert.equal(gc.metrics().coalesced, 1);
});

test("slow is not down: by default no deadline — a request answered late is answered, nothing aborts it, nothing is armed", async () => {
  const { gc, net } = await boot();
  assert.equal(gc.options?.timeoutMs, 0, "no deadline unless the app sets one");
  const quiet = gc.fetch("/api/report"); // the quiet path
  const own = gc.fetch("/api/export", decided); // through Go
  await eventually(() => net.sent.length === 2);
  const [a, b] = net.sent as [Sent, Sent];
  assert.equal(a.signal, undefined, "no signal of the module's on a call that had none");
  assert.equal(b.signal, undefined);
  await new Promise((r) => setTimeout(r, 100));
  a.answer(new Response("late"));
  b.answer(new Response("later"));
  assert.equal(await (await quiet).text(), "late");
  assert.equal(await (await own).text(), "later");
  assert.equal(gc.read(), null);
  assert.equal(gc.metrics().network, 2);
});

test("coalescing keeps each caller's deadline: identical GETs whose deadlines differ are not merged", async () => {
  const { gc, net } = await boot({ timeoutMs: "50" });
  const bounded = gc.fetch("/api/j", decided);
  const patient = gc.fetch("/api/j", { ...decided, timeout: false } as RequestInit);
  const twin = gc.fetch("/api/j", decided); // the same deadline as the first: shared with it
  await eventually(() => net.sent.length === 2);
  await assert.rejects(bounded, { name: "TimeoutError" });
  await assert.rejects(twin, { name: "TimeoutError" });
  net.sent[1]!.answer(new Response("patient"));
  assert.equal(await (await patient).text(), "patient");
  assert.equal(net.sent.length, 2);
});

test("Open and Changed: a trip status arms the circuit, subscribers hear of it, the next call is answered open", async () => {
  const { gc, net } = await boot();
  const heard: unknown[] = [];
  gc.subscribe((s) => heard.push(s));
  const a = gc.fetch("/api/o", decided);
  (await net.nth(1)).answer(new Response("", { status: 502 }));
  assert.equal((await a).status, 502);
  assert.equal(gc.read()?.httpStatus, 502);
  assert.ok(heard.length > 0, "no subscriber heard of the trip");
  const b = await gc.fetch("/api/o", decided); // asked again: it failed while open (a new GET would be the scout, below)
  assert.equal(b.status, 503);
  assert.equal(marker(b), "open");
  assert.equal(net.sent.length, 1);
  assert.equal(gc.metrics().shortCircuited, 1);
});

/** Trips the circuit with a 502 of /api/b/0 (the network's first request). */
async function tripped() {
  const booted = await boot();
  const a = booted.gc.fetch("/api/b/0", decided);
  (await booted.net.nth(1)).answer(new Response("", { status: 502 }));
  assert.equal((await a).status, 502);
  assert.equal(booted.gc.read()?.httpStatus, 502);
  return booted;
}

/** The n-th request sent, unless `call` is answered first (answered open, without the network): that fails. */
async function sentFor(net: FakeNetwork, n: number, call: Promise<Response>): Promise<Sent> {
  const first = await Promise.race([net.nth(n), call]);
  assert.ok(!(first instanceof Response), `answered without the network: ${first instanceof Response && marker(first)}`);
  return first as Sent;
}

test("Scout: while this page's trip is open, a new GET goes out, the other new one waits for it; its success closes the circuit and lets it through", async () => {
  const { gc, net } = await tripped();
  assert.equal(marker(await gc.fetch("/api/b/0", decided)), "open"); // failed while open: answered open
  const scout = gc.fetch("/api/a/0", decided);
  const sentScout = await sentFor(net, 2, scout);
  const waiter = gc.fetch("/api/a/1", decided);
  assert.equal(marker(await gc.fetch("/api/b/0", decided)), "open"); // a sentinel, decided after the waiter
  assert.equal(net.sent.length, 2, "the other new GET waits for the scout");
  assert.equal(gc.metrics().scouts, 1);
  sentScout.answer(new Response("a0"));
  assert.equal(await (await scout).text(), "a0");
  (await net.nth(3)).answer(new Response("a1"));
  assert.equal(await (await waiter).text(), "a1");
  assert.equal(gc.read(), null);
});

test("Scout: its failure ends the open period's scouting; the GET that waited for it and a new one after are answered open", async () => {
  const { gc, net } = await tripped();
  const until = gc.read()?.until;
  const scout = gc.fetch("/api/a/0", decided);
  const sentScout = await sentFor(net, 2, scout);
  const waiter = gc.fetch("/api/a/1", decided);
  sentScout.answer(new Response("", { status: 502 }));
  assert.equal((await scout).status, 502);
  assert.equal(marker(await waiter), "open");
  assert.equal(net.sent.length, 2);
  const next = gc.fetch("/api/c/0", decided); // a new key: no second scout
  const first = await Promise.race([net.nth(3), next]);
  if (!(first instanceof Response)) first.answer(new Response("", { status: 502 }));
  assert.ok(first instanceof Response, "a new GET after the failed scout went out as a second scout");
  assert.equal(marker(first), "open");
  assert.equal(net.sent.length, 2);
  assert.equal(gc.metrics().scouts, 1, "neither the waiter nor the new GET was sent as a second scout");
  assert.equal(gc.read()?.until, until);
});

test("Scout after a page load: Go stores the open period's scouting; a reload sends no scout, the next page's new GET is the scout and its success closes the circuit", async (t) => {
  const storage = new MemoryStorage();
  // Go reaches the page's sessionStorage itself (engine.ts), as in a browser.
  Object.defineProperty(globalThis, "sessionStorage", { value: storage, configurable: true });
  t.after(() => void Reflect.deleteProperty(globalThis, "sessionStorage"));
  const first = await boot({}, storage);
  const a = first.gc.fetch("/api/b/0", decided);
  (await first.net.nth(1)).answer(new Response("", { status: 502 }));
  assert.equal((await a).status, 502);
  const record = storage.getItem(SCOUT_KEY);
  assert.ok(record && !record.includes("/api/"), `stored scouting without the URL: ${record}`);
  const reloaded = await boot({}, storage, true);
  assert.equal(marker(await reloaded.gc.fetch("/api/a/0", decided)), "open", "F5: a new key is answered open");
  assert.equal(reloaded.net.sent.length, 0);
  assert.equal(storage.getItem(SCOUT_KEY), record, "the reload leaves the scouting for a later page");
  const next = await boot({}, storage);
  assert.equal(marker(await next.gc.fetch("/api/b/0", decided)), "open", "the key that failed is answered open");
  const scout = next.gc.fetch("/api/a/0", decided);
  (await sentFor(next.net, 1, scout)).answer(new Response("a0"));
  assert.equal(await (await scout).text(), "a0");
  assert.equal(next.gc.read(), null, "the scout's success withdrew the trip");
  assert.equal(storage.getItem(SCOUT_KEY), null);
  assert.equal(next.gc.metrics().scouts, 1);
});

test("Wait: half-open waiters wait for the probe, not on a timer: decisions stay ≤ 2 × waiters while it hangs", async () => {
  const { gc, net, clock } = await boot();
  gc.arm(502, 1000);
  clock.now += 1001; // the circuit's time is up: the next call is the probe
  const probe = gc.fetch("/api/p");
  const sentProbe = await net.nth(1);
  const waiters = 5;
  const waiting = Array.from({ length: waiters }, (_, i) => gc.fetch(`/api/p?w=${i}`));
  assert.equal(gc.metrics().probes, 1);
  // The probe hangs a while (a hold, not a timed assertion: a waiter that
  // re-decides on a timer shows within it; one that awaits the probe never).
  await new Promise((r) => setTimeout(r, 300));
  assert.ok(gc.metrics().decisions <= 2 * waiters, `${gc.metrics().decisions} decisions while the probe hung`);
  assert.equal(net.sent.length, 1);
  sentProbe.answer(new Response("up"));
  assert.equal(await (await probe).text(), "up");
  for (let i = 0; i < waiters; i++) {
    const sent = await net.nth(2 + i);
    sent.answer(new Response(new URL(sent.url).search));
  }
  const texts = await Promise.all(waiting.map(async (p) => (await p).text()));
  assert.deepEqual(texts, ["?w=0", "?w=1", "?w=2", "?w=3", "?w=4"]);
  assert.equal(gc.read(), null);
  assert.ok(gc.metrics().decisions <= 2 * waiters + 1, `${gc.metrics().decisions} decisions in all`);
});

test("Cooling: a 429 with a long Retry-After pauses the service", async () => {
  const { gc, net } = await boot();
  const a = gc.fetch("/api/c", decided);
  (await net.nth(1)).answer(new Response("", { status: 429, headers: { "retry-after": "120" } }));
  assert.equal((await a).status, 429);
  const b = await gc.fetch("/api/c2", decided);
  assert.equal(marker(b), "cooldown");
  assert.equal(net.sent.length, 1);
  assert.equal(gc.metrics().cooledDown, 1);
  assert.equal(gc.blocking().pauses.length, 1);
});

test("the Pauses frame: Go's pauses reach blocking(), with until when, and whether the server asked (its Asked line)", async () => {
  const { gc, net, clock } = await boot({ scope: "/api/,/other/" });
  const a = gc.fetch("/api/c", decided);
  (await net.nth(1)).answer(new Response("", { status: 429, headers: { "retry-after": "120" } }));
  await a;
  const b = gc.fetch("/other/c", decided);
  (await net.nth(2)).answer(new Response("", { status: 429, headers: { "retry-after": "1" } })); // waited out, retried once
  const retry = await net.nth(3);
  clock.now += 1000;
  retry.answer(new Response("", { status: 429 })); // the module chooses the pause
  await b;
  const pauses = [...gc.blocking().pauses].sort((x, y) => x.service.localeCompare(y.service));
  assert.equal(pauses.length, 2, JSON.stringify(pauses));
  assert.deepEqual(pauses[0], { service: "http://app.test/api/", until: clock.now - 1000 + 120_000, serverAsked: true });
  assert.equal(pauses[1]!.service, "http://app.test/other/");
  assert.equal(pauses[1]!.serverAsked, false);
});

test("the Attributes and Options frames: Go's options reach gc.options, refused attributes are warned about, a newline stays inside its attribute", async () => {
  const warned: string[] = [];
  const warn = console.warn;
  console.warn = (m: string) => warned.push(m);
  try {
    const { gc } = await boot({ ttlMs: "900000", probe: "maybe\nttlMs=1", tripStatuses: "408, 502", negativeCache: "ALWAYS", stale: "True" });
    assert.equal(gc.options.ttlMs, 120_000); // capped by data-max-ttl-ms, not 1
    assert.equal(gc.options.probe, true);
    assert.deepEqual(gc.options.tripStatuses, [408, 502]);
    assert.equal(gc.options.negativeCache, true);
    assert.equal(gc.options.stale, true);
    assert.deepEqual(gc.options.scope, ["http://app.test/api/"]);
    assert.equal(warned.length, 2, warned.join("\n"));
    assert.match(warned[0]!, /data-probe: "maybe ttlMs=1" is not on or off; using on/);
    assert.match(warned[1]!, /data-ttl-ms: 900000 exceeds data-max-ttl-ms 120000/);
  } finally {
    console.warn = warn;
  }
});

test("Retry: a 429 with a short Retry-After is sent once more after it", async () => {
  const { gc, net } = await boot();
  const a = gc.fetch("/api/r", decided);
  (await net.nth(1)).answer(new Response("", { status: 429, headers: { "retry-after": "1" } }));
  (await net.nth(2)).answer(new Response("after"));
  assert.equal(await (await a).text(), "after");
  assert.equal(gc.metrics().retries, 1);
});

test("Negative: a GET that failed moments ago is answered without the network", async () => {
  const { gc, net } = await boot({ negativeCache: "always" });
  const a = gc.fetch("/api/n", decided);
  (await net.nth(1)).answer(new Response("", { status: 500 }));
  assert.equal((await a).status, 500);
  const b = await gc.fetch("/api/n", decided);
  assert.equal(marker(b), "negative");
  assert.equal(net.sent.length, 1);
  assert.equal(gc.metrics().negativeHits, 1);
});

test("WantBody, Serve and Stale: a copy is kept, served when the request fails, and while the circuit is open", async () => {
  const { gc, net, clock } = await boot({ stale: "on" });
  const a = gc.fetch("/api/s");
  (await net.nth(1)).answer(new Response("v1"));
  assert.equal(await (await a).text(), "v1");
  await eventually(() => gc.diagnostics().staleCopies === 1); // FlagWantBody: Go asked for the body
  clock.now += 60_000; // past the trip window: the failure below is no partial one
  const b = gc.fetch("/api/s");
  (await net.nth(2)).answer(new Response("", { status: 502 }));
  const served = await b; // FlagServe: the failed request is answered with the copy
  assert.equal(marker(served), "stale");
  assert.equal(await served.text(), "v1");
  assert.equal(gc.read()?.httpStatus, 502);
  const c = await gc.fetch("/api/s"); // Kind.Stale: the circuit is open, the copy answers
  assert.equal(marker(c), "stale");
  assert.equal(await c.text(), "v1");
  assert.equal(net.sent.length, 2);
  assert.equal(gc.metrics().staleServed, 2);
});

test("Cached: a GET that keeps answering empty is answered with its copy", async () => {
  const { gc, net } = await boot({ emptyTtl: "on" });
  for (let i = 1; i <= 3; i++) {
    const p = gc.fetch("/api/e");
    (await net.nth(i)).answer(new Response("[]", { headers: { "content-type": "application/json" } }));
    assert.equal(await (await p).text(), "[]");
    await eventually(() => gc.diagnostics().staleCopies === 1);
  }
  const d = await gc.fetch("/api/e");
  assert.equal(marker(d), "cached");
  assert.equal(await d.text(), "[]");
  assert.equal(net.sent.length, 3);
  assert.equal(gc.metrics().emptyReused, 1);
});

test("the Mutation, Key and Action frames: a mutation carries Go's key, and its retry the same one", async () => {
  const { gc, net } = await boot();
  const a = gc.fetch("/api/m", { method: "POST", body: '{"x":1}' });
  const first = await net.nth(1);
  const key = first.headers.get("idempotency-key");
  assert.ok(key, "no Idempotency-Key");
  first.answer(new Response("", { status: 500 }));
  await a;
  const b = gc.fetch("/api/m", { method: "POST", body: '{"x":1}' });
  const second = await net.nth(2);
  assert.equal(second.headers.get("idempotency-key"), key);
  second.answer(new Response("done"));
  assert.equal(await (await b).text(), "done");
});

test("a 4xx trip status trips on the quiet path too (Go's table says which answers change nothing)", async () => {
  const { gc, net } = await boot({ tripStatuses: "408,502,503,504" });
  const a = gc.fetch("/api/q"); // a plain GET while Go is quiet: sent without a decision
  (await net.nth(1)).answer(new Response("", { status: 408 }));
  assert.equal((await a).status, 408);
  assert.equal(gc.read()?.httpStatus, 408);
  assert.equal(marker(await gc.fetch("/api/q")), "open"); // asked again (a new GET would be the open period's scout)
  // A 404 still changes nothing, and is not reported.
  const { gc: quiet, net: net2 } = await boot({ tripStatuses: "408,502,503,504" });
  const b = quiet.fetch("/api/q");
  (await net2.nth(1)).answer(new Response("", { status: 404 }));
  assert.equal((await b).status, 404);
  assert.equal(quiet.read(), null);
  assert.equal(quiet.metrics().decisions, 0);
});

test("the caller's own key reaches Go in the Mutation frame's headers: reused with another body it is refused locally (422)", async () => {
  const { gc, net } = await boot();
  const headers = { "idempotency-key": "order-1", "content-type": "application/json" };
  const a = gc.fetch("/api/orders", { method: "POST", headers, body: '{"n":1}' });
  const first = await net.nth(1);
  assert.equal(first.headers.get("idempotency-key"), "order-1"); // the caller's own key, verbatim
  first.answer(new Response("", { status: 500 }));
  await a;
  const b = await gc.fetch("/api/orders", { method: "POST", headers, body: '{"n":2}' });
  assert.equal(b.status, 422);
  assert.equal(marker(b), "idempotency");
  assert.equal(net.sent.length, 1);
  assert.equal(gc.metrics().idempotencyRefused, 1);
});

test("FlagKeyed: Go says which calls carry an Idempotency-Key — mutations to the page's origin; another origin only when opted in; none when off", async () => {
  /** The Idempotency-Key each call was sent with ("" for none). */
  const keysOf = async (attrs: Record<string, string>, calls: [string, string][]) => {
    const { gc, net } = await boot({ scope: "/api/,http://api.test/", ...attrs });
    const keys: string[] = [];
    for (const [method, url] of calls) {
      const p = gc.fetch(url, { method, headers: { "x-test": "1" }, body: method === "GET" || method === "HEAD" ? undefined : "{}" });
      const sent = await net.nth(keys.length + 1);
      keys.push(sent.headers.get("idempotency-key") ?? "");
      sent.answer(new Response("ok"));
      await p;
    }
    return keys.map((k) => (k ? "key" : ""));
  };
  const calls: [string, string][] = [
    ["POST", "/api/a"],
    ["PUT", "/api/a"],
    ["PATCH", "/api/a"],
    ["DELETE", "/api/a"],
    ["GET", "/api/a"],
    ["OPTIONS", "/api/a"],
    ["POST", "http://api.test/a"],
  ];
  assert.deepEqual(await keysOf({}, calls), ["key", "key", "key", "key", "", "", ""]);
  assert.deepEqual(await keysOf({ idempotency: "cross-origin" }, calls), ["key", "key", "key", "key", "", "", "key"]);
  assert.deepEqual(await keysOf({ idempotency: "off" }, calls), ["", "", "", "", "", "", ""]);
});

test("the Key frame's empty header: Go finds the caller's own key in the header block, and the shim sends it as given", async () => {
  const { gc, net } = await boot();
  const own = [
    { "Idempotency-Key": '"order-7"' }, // an sf-string keeps its quotes
    new Headers({ "content-type": "application/json", "idempotency-key": "order-8" }),
  ];
  for (const [i, headers] of own.entries()) {
    const p = gc.fetch(new Request("http://app.test/api/orders", { method: "PUT", headers, body: "{}" }));
    const sent = await net.nth(i + 1);
    assert.equal(sent.headers.get("idempotency-key"), ['"order-7"', "order-8"][i]);
    sent.answer(new Response("ok"));
    await p;
  }
  const bad = await gc.fetch("/api/orders", { method: "POST", headers: { "idempotency-key": '"order-9' }, body: "{}" }).catch((e: unknown) => e);
  assert.equal((bad as Error).name, "GatewayIdempotencyError", String(bad)); // Go read it, and refused it
  assert.equal(net.sent.length, 2);
});

test("a long-lived signal (one per component, as apps keep them) gathers no listener per call: once an answer is read and dropped, the module stops listening", async () => {
  const collect = (globalThis as { gc?: () => void }).gc;
  assert.ok(collect, "run with node --expose-gc (make test-boundary)");
  const { gc, net } = await boot();
  const ctl = new AbortController();
  const calls = 40;
  for (let i = 0; i < calls; i++) {
    // Go decides the one with headers; the plain one takes the quiet path: both share a flight with the caller's signal.
    const p = gc.fetch(`/api/poll?i=${i}`, i % 2 ? { ...decided, signal: ctl.signal } : { signal: ctl.signal });
    (await net.nth(i + 1)).answer(new Response("ok"));
    assert.equal(await (await p).text(), "ok");
  }
  const listening = () => getEventListeners(ctl.signal, "abort").length;
  for (let i = 0; i < 200 && listening() > 2; i++) {
    collect();
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.ok(listening() <= 2, `${listening()} listeners left on the caller's signal after ${calls} calls answered and read`);
});
