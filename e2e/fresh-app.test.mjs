// A fresh create-next-app app (App Router, TypeScript, cacheComponents, and
// in `next dev` React's StrictMode, which the App Router turns on) that uses
// the package only as a newcomer would: the `npm pack` tarball and the steps
// of demo/nextjs/README.md (e2e/fixtures/setup-fresh-app.mjs). nginx is the
// gateway in front of it: the pages go to Next, /api/ to the demo gateway,
// or to nothing when the gateway is down (nginx's own 502). nginx's access
// log is the ground truth of what reached the gateway.
//
// Needs the app built: `make fresh-app-build` (e2e/fresh-app.mk). When it is
// not, the suite fails and says so.

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { launchBrowser, queriesSettled, startGateway, startNext, watchedPage } from "./harness.mjs";
import { startNginx } from "./nginx.mjs";

const root = new URL("..", import.meta.url).pathname;
const app = `${root}build/fresh-app`;
const nextBin = `${app}/node_modules/next/dist/bin/next`;
const QUERIES = 10; // the page's useQuery calls
const KEY = "gateway_circuit_v1";

let gw, browser;
before(async () => {
  assert.ok(existsSync(`${app}/.next/BUILD_ID`), "the fresh app is not built: run `make fresh-app-build` (e2e/fresh-app.mk)");
  gw = await startGateway();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await gw?.stop();
});

const settled = (page) => queriesSettled(page, QUERIES, 60_000); // next dev compiles the page on its first request
const rowStates = (page) => page.$$eval('[data-testid="query"]', (rows) => rows.map((r) => r.dataset.state));
const overlayVisible = (page) => page.isVisible('[data-testid="overlay"]');

// `next dev` is where StrictMode mounts every component twice; `next start` is what users get.
for (const command of ["start", "dev"]) {
  describe(`the fresh app under next ${command}, behind nginx`, () => {
    let next, nginx;
    before(async () => {
      next = await startNext(app, {}, { command, next: nextBin });
      nginx = await startNginx({ scenario: "proxy", upstreamUrl: next.url, apiUrl: gw.url });
    });
    after(async () => {
      await nginx?.stop();
      await next?.stop();
    });

    test("one page load sends each query to the gateway once", async () => {
      await nginx.setScenario("proxy");
      const context = await browser.newContext();
      const { page, problems } = await watchedPage(context);
      const before = await nginx.count("/api/");
      await page.goto(nginx.url + "/", { timeout: 120_000 });
      await settled(page);
      assert.deepEqual(await rowStates(page), Array(QUERIES).fill("success"));
      await page.waitForFunction(() => window.gatewayCircuit.status !== "loading", null, { timeout: 15_000 });
      assert.equal(await page.evaluate(() => window.gatewayCircuit.status), "ready");
      assert.equal((await nginx.count("/api/")) - before, QUERIES, "requests that reached the gateway for one page load");
      assert.deepEqual(problems, []);
      await context.close();
    });

    test("gateway down: the overlay, then F5 x 5 sends 0 requests to the gateway", async () => {
      await nginx.setScenario("dead");
      const context = await browser.newContext();
      const { page, problems } = await watchedPage(context);
      const start = await nginx.count("/api/", 502);
      await page.goto(nginx.url + "/", { timeout: 120_000 });
      await settled(page);
      await page.waitForFunction(() => document.documentElement.dataset.gatewayCircuit === "armed", null, { timeout: 10_000 });
      assert.equal(await overlayVisible(page), true);
      assert.equal(await page.textContent('[data-testid="overlay-status"]'), "502");
      assert.equal((await nginx.count("/api/", 502)) - start, QUERIES, "the first load: each query once, no retries");
      const armed = await page.evaluate((k) => sessionStorage.getItem(k), KEY);

      const before = await nginx.count("/api/");
      for (let i = 1; i <= 5; i++) {
        await page.reload();
        assert.equal(await overlayVisible(page), true, `overlay visible as soon as reload ${i} loaded`);
        await settled(page);
        assert.deepEqual(await rowStates(page), Array(QUERIES).fill("error"), `reload ${i}`);
      }
      assert.equal((await nginx.count("/api/")) - before, 0, "no request reached the gateway over 5 reloads");
      assert.equal(await page.evaluate((k) => sessionStorage.getItem(k), KEY), armed, "reloads do not move the deadline");
      assert.deepEqual(problems, []);
      await context.close();
    });
  });
}
