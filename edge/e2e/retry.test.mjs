// End to end: a user's action that fails once, through the edge, in
// Chromium. The demo page and its browser module are served through the
// edge (passUnmatched, the demo gateway behind it); the orders go to the
// counting upstream, which fails the first request — 500, 503, 429 with
// Retry-After: 1, or no answer within the edge's 2 s — then accepts, and
// honours the Idempotency-Key as an origin ledger would. The module keeps
// the action's key for the second click; the edge must let it through.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { launchBrowser, sleep, startGateway, watchedPage } from "../../e2e/harness.mjs";
import { startEdge, startUpstream } from "../test/workerd.mjs";

let gw, up, edge, browser, page;

// click runs one POST through gatewayCircuit.fetch in the page.
function click(path) {
  return page.evaluate(async (path) => {
    const init = { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer tok-demo" }, body: JSON.stringify({ item: "lamp", qty: 1 }) };
    try {
      const r = await window.gatewayCircuit.fetch(path, init);
      return { status: r.status, retryAfter: r.headers.get("retry-after"), body: await r.text() };
    } catch (e) {
      return { error: String(e) };
    }
  }, path);
}

// blockedFor is how long (ms) the module holds requests back now.
async function blockedFor() {
  return page.evaluate(() => {
    const b = window.gatewayCircuit.blocking();
    const untils = [b.circuit?.until ?? 0, ...(b.pauses ?? []).map((p) => p.until)];
    return Math.max(0, ...untils.map((u) => u - Date.now()));
  });
}

before(async () => {
  gw = await startGateway();
  up = await startUpstream();
  edge = await startEdge({
    upstream: gw.url,
    upstreamTimeoutMs: 2_000,
    passUnmatched: true,
    services: [{ name: "api", prefix: "/api/" }, { name: "shop", prefix: "/api/shop/", upstream: up.url }],
    tokens: { "tok-demo": "demo" },
  });
  browser = await launchBrowser();
  ({ page } = await watchedPage(await browser.newContext()));
  await page.goto(`${edge.url}/`);
  await page.waitForFunction(() => document.body.dataset.module === "ready", null, { timeout: 10_000 });
});

after(async () => {
  await browser?.close();
  await edge?.close();
  await gw?.stop();
  up?.stop();
});

// [failure, what the first click gets]. A 429 with a Retry-After of 10 s
// or less is waited out by the module itself, which sends the request once
// more with the same key: the first click is the one that succeeds.
for (const [name, failure, firstStatus] of [
  ["500", { status: 500, body: "oops" }, 500],
  ["503", { status: 503, body: "busy" }, 503],
  ["429 with Retry-After: 1", { status: 429, retryAfter: "1" }, 201],
  ["no answer in 2 s", { delayMs: 3_000 }, 502],
]) {
  test(`an order that failed once (${name}) succeeds on the retry, once`, async () => {
    const path = `/api/shop/orders-${name.slice(0, 3).trim()}`;
    await up.mode({ path, ...failure, fail: 1, keys: true });
    const first = await click(path);
    assert.equal(first.status, firstStatus, JSON.stringify(first));
    if (firstStatus !== 201) {
      // A 503 or the edge's 502 arms the circuit (nothing else was in
      // flight with it): the user's retry is the overlay's "try again",
      // which clears it and keeps the action's key.
      await page.evaluate(() => window.gatewayCircuit.clear());
      const wait = await blockedFor();
      assert.ok(wait <= 10_000, `the module holds requests back ${wait} ms`);
      await sleep(wait + 100);
      const second = await click(path);
      assert.equal(second.status, 201, JSON.stringify(second));
    }
    const seen = (await up.seen()).filter((s) => s.uri === path);
    assert.equal(seen.length, 2, "the failed request and its retry reached the upstream");
    const keys = new Set(seen.map((s) => s.header["idempotency-key"]));
    assert.equal(keys.size, 1, "one action, one key: " + JSON.stringify([...keys]));
    assert.equal((await up.counts())[`effects ${[...keys][0].replaceAll('"', "")}`], 1, "one effect");
    await page.evaluate(() => window.gatewayCircuit.clear());
  });
}
