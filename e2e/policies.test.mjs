// The policies around the circuit, end to end in each engine (driver/,
// E2E_ENGINE), with the requests counted at the demo gateway as the ground
// truth.

import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";
import { engine } from "./driver/index.mjs";
import { gatewayAndBrowser, openDemo, sentinel, settled, sleep } from "./harness.mjs";

const env = gatewayAndBrowser();

beforeEach(async () => {
  await env.gw.setMode({ status: 200 });
  await env.gw.reset();
});

const open = (query) => openDemo(env, query);

describe(`the policies around the circuit in ${engine}`, () => {
  test("coalescing: 50 identical parallel GETs make 1 request; each caller reads its own body", async () => {
    await env.gw.setMode({ status: 200, delayMs: 300 });
    const { page, context } = await open();
    const bodies = await page.evaluate(async () => {
      const responses = await Promise.all(Array.from({ length: 50 }, () => gatewayCircuit.fetch("/api/same")));
      return Promise.all(responses.map((r) => r.json()));
    });
    assert.equal(await env.gw.count("/api/"), 1);
    assert.equal(bodies.length, 50);
    assert.ok(bodies.every((b) => b.path === "/api/same" && b.n === 1), "every caller got the one answer");
    assert.equal((await page.evaluate(() => gatewayCircuit.metrics())).coalesced, 49);
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  test("coalescing: a waiter that aborts does not cancel the others", async () => {
    await env.gw.setMode({ status: 200, delayMs: 400 });
    const { page, context } = await open();
    const result = await page.evaluate(async () => {
      const leaving = new AbortController();
      const leader = gatewayCircuit.fetch("/api/shared", { signal: new AbortController().signal });
      const quitter = gatewayCircuit.fetch("/api/shared", { signal: leaving.signal }).then(
        () => "resolved",
        (e) => e.name,
      );
      const stayer = gatewayCircuit.fetch("/api/shared");
      setTimeout(() => leaving.abort(), 50);
      return [await quitter, (await leader).status, (await stayer).status];
    });
    assert.deepEqual(result, ["AbortError", 200, 200]);
    assert.equal(await env.gw.count("/api/"), 1);
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  test("half-open: after the TTL, 20 mounted queries send exactly 1 probe to a gateway still down", async () => {
    await env.gw.setMode({ status: 502 });
    const { page, context } = await open("queries=20&ttl=3000");
    await settled(page, 20);
    await page.waitForFunction(() => document.body.dataset.circuit === "armed");
    const first = await page.evaluate(() => gatewayCircuit.read());
    await env.gw.reset();
    // The page refetches its 20 queries when the circuit closes (app.ts).
    await page.waitForFunction(
      (until) => {
        const s = gatewayCircuit.read();
        return s !== null && s.until > until;
      },
      first.until,
      { timeout: 10_000 },
    );
    await sentinel(env, page); // the 19 waiters resumed and were answered, and what was sent arrived
    assert.equal(await env.gw.count("/api/"), 1, "one probe, no stampede");
    const rearmed = await page.evaluate(() => gatewayCircuit.read());
    const ttl = rearmed.until - first.until;
    assert.ok(ttl >= 5000, `the failed probe re-armed with a doubled TTL (${ttl} ms after the first deadline)`);
    assert.equal((await page.evaluate(() => gatewayCircuit.metrics())).probes, 1);
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  test("429 with Retry-After: 2 → one retry after at least 2 s, then the service pauses", async () => {
    await env.gw.setMode({ status: 429, retryAfter: 2 });
    const { page, context } = await open();
    const r = await page.evaluate(async () => {
      const t = performance.now();
      const res = await gatewayCircuit.fetch("/api/limited");
      const elapsed = performance.now() - t;
      const paused = await gatewayCircuit.fetch("/api/other");
      gatewayCircuit.clear(); // the user's "try again" does not lift a pause the server asked for
      const still = await gatewayCircuit.fetch("/api/other");
      return {
        status: res.status,
        elapsed,
        paused: [paused.status, paused.headers.get("x-gateway-circuit")],
        still: still.headers.get("x-gateway-circuit"),
      };
    });
    assert.equal(r.status, 429, "the server's answer, after the one retry");
    assert.ok(r.elapsed >= 2000, `retried after ${r.elapsed} ms`);
    assert.equal(await env.gw.count("/api/"), 2, "the request and its one retry");
    assert.deepEqual(r.paused, [503, "cooldown"], "the whole service pauses");
    assert.equal(r.still, "cooldown");
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  test("stale fallback: the old data, with its age, while the gateway is down", async () => {
    const { page, context } = await open("queries=1&stale=on");
    await page.waitForFunction(() => document.querySelector("#queries .status.success"));
    // Copies are kept of answers the Go core saw: the first load's query may
    // have gone out before the wasm was ready.
    await page.dispatchEvent("#refetch", "click");
    await page.waitForFunction(() => gatewayCircuit.diagnostics().staleCopies === 1);
    await env.gw.setMode({ status: 502 });
    await sleep(3100); // the trip rule: no success within its 3 s window
    await page.dispatchEvent("#refetch", "click");
    await page.waitForFunction(() => document.querySelector("#queries tr[data-stale=true]"), null, { timeout: 10_000 });
    const detail = await page.textContent("#queries tr .detail");
    assert.match(detail, /^stale, [1-9]\d* s old: \{.*"path":"\/api\/items\/0"/);
    assert.equal(await page.evaluate(() => document.body.dataset.circuit), "armed");
    await env.gw.reset();
    await page.dispatchEvent("#refetch", "click");
    await sentinel(env, page);
    assert.equal(await env.gw.count("/api/"), 0, "while armed, the stale copy answers without the network");
    await page.screenshot(new URL(`artifacts/stale-fallback-${engine}.png`, import.meta.url).pathname);
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  test("negative cache (always): a failing GET asked on every render for 30 s reaches the gateway once", async () => {
    const { page, context } = await open("queries=0&stale=on&negative=always");
    // The page reads the answer: a copy is taken as the app reads the body.
    const ok = await page.evaluate(async () => {
      const res = await gatewayCircuit.fetch("/api/profile");
      await res.text();
      return res.status;
    });
    assert.equal(ok, 200);
    await page.waitForFunction(() => gatewayCircuit.diagnostics().staleCopies === 1);
    await env.gw.setMode({ status: 500 });
    await env.gw.reset();
    const r = await page.evaluate(async () => {
      const seen = { stale: 0, other: 0 };
      const end = performance.now() + 30_000;
      while (performance.now() < end) {
        const res = await gatewayCircuit.fetch("/api/profile"); // a render
        if (res.headers.get("x-gateway-circuit") === "stale") seen.stale++;
        else seen.other++;
        await new Promise((r) => setTimeout(r, 16));
      }
      return seen;
    });
    assert.equal(await env.gw.count("/api/"), 1, "30 s of renders, one request");
    assert.ok(r.stale > 100, `renders got the stale copy (${r.stale})`);
    assert.equal(r.other, 0);
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  test("adaptive TTL (opt-in): a GET that keeps answering empty is asked less often", async () => {
    const { page, context } = await open("queries=0&empty=on");
    const r = await page.evaluate(async () => {
      const markers = [];
      for (let i = 0; i < 23; i++) {
        const res = await gatewayCircuit.fetch("/api/list/empty");
        markers.push(res.headers.get("x-gateway-circuit"));
        await res.json();
        await new Promise((r) => setTimeout(r, 20)); // let the copy be kept
      }
      return { markers, metrics: gatewayCircuit.metrics() };
    });
    assert.equal(await env.gw.count("/api/"), 3, "three empty answers in a row, then 60 s without the network");
    assert.deepEqual(r.markers.slice(0, 3), [null, null, null]);
    assert.ok(r.markers.slice(3).every((m) => m === "cached"), r.markers.join());
    assert.equal(r.metrics.emptyReused, 20);
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  test("a 429 pause survives F5: the reloaded page's queries do not reach the gateway", async () => {
    await env.gw.setMode({ status: 429 }); // no Retry-After: 5 s, waited out and retried once, then 10 s
    const { page, context } = await open("queries=0");
    const first = await page.evaluate(async () => (await gatewayCircuit.fetch("/api/limited")).status);
    assert.equal(first, 429);
    await env.gw.reset();
    for (let i = 0; i < 3; i++) {
      await page.goto(`${env.gw.url}/?queries=10`); // F5: queries fire before the wasm is ready
      await settled(page, 10);
    }
    assert.equal(await env.gw.count("/api/"), 0, "the pause the module chose held across reloads");
    const detail = await page.textContent("#queries tr:first-child .detail");
    assert.equal(detail, "GATEWAY_CIRCUIT_OPEN 429");
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });
});
