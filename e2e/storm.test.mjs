// The demo page's F5 storm chart, in each engine (driver/, E2E_ENGINE): its
// data against the gateway's own count (the ground truth) and against
// gatewayCircuit.metrics(), which must count every call, the quiet path too.

import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";
import { engine } from "./driver/index.mjs";
import { gatewayAndBrowser, settled, sleep } from "./harness.mjs";

const env = gatewayAndBrowser();

beforeEach(async () => {
  await env.gw.setMode({ status: 200 });
  await env.gw.reset();
});

const metrics = (page) => page.evaluate(() => gatewayCircuit.metrics());
/** The chart's data, as the page exposes it on the figure. */
const chart = (page) =>
  page.evaluate(() => {
    const d = document.getElementById("storm").dataset;
    return { series: JSON.parse(d.series ?? "null"), reached: Number(d.reached), local: Number(d.local), samples: Number(d.samples) };
  });

/** The chart once it shows `want` (it reads metrics every 250 ms and the gateway every second). */
async function chartShows(page, want) {
  let got;
  for (let i = 0; i < 50; i++) {
    got = await chart(page);
    if (got.reached === want.reached && got.local === want.local && got.samples > 0) return got;
    await sleep(200);
  }
  assert.deepEqual({ reached: got.reached, local: got.local }, want, "the chart never caught up");
  return got;
}

describe(`the F5 storm chart in ${engine}`, () => {
  test("the gateway is down: over 4 reloads the chart shows nothing reaching it, and every query answered locally", async () => {
    await env.gw.setMode({ status: 502 });
    const context = await env.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${env.gw.url}/?queries=6&ttl=60000`); // a 60 s first open period: the reloads fall in it
    await settled(page, 6);
    await page.waitForFunction(() => document.body.dataset.circuit === "armed", null, { timeout: 10_000 });
    const reached = await env.gw.count("/api/");
    assert.equal(reached, 6, "the first load reaches the gateway once per query");
    const armedAt = Math.floor(Date.now() / 1000);
    let local = (await metrics(page)).answeredLocally;

    for (let i = 1; i <= 4; i++) {
      await page.reload();
      await settled(page, 6);
      const m = await metrics(page);
      assert.deepEqual(
        { calls: m.calls, answeredLocally: m.answeredLocally, shortCircuited: m.shortCircuited, network: m.network },
        { calls: 6, answeredLocally: 6, shortCircuited: 6, network: 0 },
        `reload ${i}: every query answered by the circuit, none sent`,
      );
      assert.equal(await page.isVisible("#overlay #storm"), true, `reload ${i}: the chart is in sight on the overlay`);
      local += m.answeredLocally;
    }
    assert.equal(await env.gw.count("/api/"), reached, "nothing reached the gateway while the circuit was armed");

    // The chart agrees with the gateway's count and with the metrics of every page load (F5 kept its history).
    const c = await chartShows(page, { reached, local });
    assert.ok(local >= 24, `answered locally: ${local}`);
    for (const [second, n] of c.series.reached) {
      assert.ok(second <= armedAt, `${n} requests reached the gateway at ${second}, after the circuit armed (${armedAt})`);
    }
    assert.match(await page.textContent("#storm .storm-summary"), new RegExp(`${reached} requests reached the gateway, ${local} were answered`));
    assert.match(await page.textContent("#overlay-title"), /잠시 후 다시 시도해 주세요/);
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  test("a closed circuit: metrics count every call, the quiet path included, as the gateway does", async () => {
    const context = await env.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${env.gw.url}/?queries=0`);
    await page.waitForFunction(() => document.body.dataset.module === "ready", null, { timeout: 10_000 });
    const N = 25;
    const statuses = await page.evaluate(async (n) => {
      // Distinct plain GETs: nothing for a policy to say, so they take the quiet path (no call into Go).
      const inScope = Array.from({ length: n }, (_, i) => gatewayCircuit.fetch(`/api/items/${i}`));
      const outside = [gatewayCircuit.fetch("/outside/a"), gatewayCircuit.fetch("/outside/b")];
      return (await Promise.all([...inScope, ...outside])).map((r) => r.status);
    }, N);
    assert.deepEqual(statuses, Array(N + 2).fill(200));
    const m = await metrics(page);
    assert.deepEqual(
      { calls: m.calls, network: m.network, passedThrough: m.passedThrough, answeredLocally: m.answeredLocally },
      { calls: N + 2, network: N, passedThrough: 2, answeredLocally: 0 },
    );
    assert.equal(await env.gw.count("/api/"), N, "the gateway's own count");
    assert.equal(await env.gw.count("/outside/"), 2);
    await chartShows(page, { reached: N, local: 0 });
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });
});
