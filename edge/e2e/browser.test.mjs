// End to end: the demo page and its browser module, served through the edge
// (passUnmatched), in Chromium; the edge in workerd in front of the demo
// gateway. What reaches the edge is read from its counters, what reaches
// the gateway from the gateway's.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { launchBrowser, sleep, startGateway, watchedPage } from "../../e2e/harness.mjs";
import { startEdge } from "../test/workerd.mjs";

let gw, edge, browser, page;
let offset = 0;

async function advance(ms) {
  offset += ms;
  await edge.setClock(offset);
}

// Every GET the edge's cache answered, whatever the answer.
async function cacheRequests() {
  const c = (await edge.metrics("service=api")).counters;
  return ["hits", "misses", "coalesced", "stale", "unavailable"].reduce((n, k) => n + (c[k] ?? 0), 0);
}

// ready waits for the module to leave "loading" (every file comes through
// workerd and the gateway; a cold, loaded machine once took over 10 s), then
// says what the page had loaded if the module is not running.
async function ready() {
  await page.waitForFunction(() => ["ready", "fallback"].includes(document.body.dataset.module), null, { timeout: 45_000 }).catch(() => {});
  const seen = await page.evaluate(() => ({
    status: document.body.dataset.module,
    files: performance.getEntriesByType("resource").map((e) => `${new URL(e.name).pathname} ${Math.round(e.duration)} ms`),
  }));
  assert.equal(seen.status, "ready", `the module is not running: ${JSON.stringify(seen)}`);
}

// fetchThroughModule runs gatewayCircuit.fetch in the page.
function fetchThroughModule(path, init) {
  return page.evaluate(async ([path, init]) => {
    const r = await window.gatewayCircuit.fetch(path, init);
    return { status: r.status, cache: r.headers.get("x-edge-cache"), age: r.headers.get("age"), retryAfter: r.headers.get("retry-after"),
      circuit: r.headers.get("x-gateway-circuit"), body: await r.text() };
  }, [path, init]);
}

before(async () => {
  gw = await startGateway();
  edge = await startEdge({
    upstream: gw.url,
    passUnmatched: true,
    principalHeader: "x-demo-user",
    testClock: true,
    services: [{ name: "api", prefix: "/api/" }],
    tokens: { "tok-demo": "demo" },
  });
  browser = await launchBrowser();
  ({ page } = await watchedPage(await browser.newContext()));
  await page.goto(`${edge.url}/?queries=3`);
  await ready();
  await page.waitForFunction(() => Number(document.body.dataset.settled ?? 0) >= 3, null, { timeout: 15_000 });
});

after(async () => {
  await browser?.close();
  await edge?.close();
  await gw?.stop();
});

test("a failing upstream: the page gets the edge's stale copy with its age", async () => {
  await fetchThroughModule("/api/items/stale");
  await gw.setMode({ status: 502 });
  await advance(31_000);
  const r = await fetchThroughModule("/api/items/stale");
  assert.deepEqual([r.status, r.cache], [200, "stale"]);
  assert.ok(Number(r.age) >= 31 && Number(r.age) <= 33, r.age); // 31 s, plus the real time the calls took
  assert.equal(await page.evaluate(() => window.gatewayCircuit.read()), null, "a stale copy does not arm the circuit");
});

test("past max-stale the edge's 503 Retry-After arms the browser's circuit for that long", async () => {
  await advance(100_000); // the copy is 131 s old; the key's backoff (30 s) is over
  // The module's trip rule counts a success sent in the same burst as the
  // failure (within 250 ms, real time), and the stale copy was one.
  await sleep(300);
  const r = await fetchThroughModule("/api/items/stale");
  assert.deepEqual([r.status, r.cache, r.retryAfter], [503, "unavailable", "60"]);
  const state = await page.evaluate(() => ({ ...window.gatewayCircuit.read(), now: Date.now() }));
  assert.equal(state.httpStatus, 503);
  assert.ok(Math.abs(state.until - state.now - 60_000) < 3_000, `armed for ${state.until - state.now} ms`);
});

test("F5 storm with the circuit armed: no request reaches the edge's cache", async () => {
  const before = await cacheRequests();
  for (let i = 0; i < 5; i++) {
    await page.reload();
    await ready();
  }
  assert.ok(await page.evaluate(() => window.gatewayCircuit.read() !== null), "still armed after the reloads");
  assert.equal(await cacheRequests(), before);
});

test("a double-clicked POST makes one upstream effect", async () => {
  await gw.setMode({ status: 200 });
  await page.evaluate(() => window.gatewayCircuit.clear());
  const before = (await gw.orders()).orders;
  const init = { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer tok-demo" }, body: JSON.stringify({ item: "book", qty: 1 }) };
  const [a, b] = await Promise.all([fetchThroughModule("/api/orders", init), fetchThroughModule("/api/orders", init)]);
  assert.ok(a.status < 300 && b.status < 300, JSON.stringify([a, b]));
  assert.equal((await gw.orders()).orders, before + 1);
});
