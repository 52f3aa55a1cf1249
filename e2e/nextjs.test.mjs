// Twin Next.js portals (issue 5): demo/nextjs/admin and demo/nextjs/user,
// built with `next build` and run with `next start` on 127.0.0.1, both
// loading the same built module and forwarding /api/* to the demo gateway.
// Ground truth is the number of requests that reached the gateway.
//
// Needs the portals built: `make nextjs-build` (demo/nextjs/nextjs.mk). When
// they are not, the suite fails and says so: a test that cannot run must not pass.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { promisify } from "node:util";
import { after, before, beforeEach, describe, test } from "node:test";
import { freePort, launchBrowser, queriesSettled, startGateway, startNext, watchedPage } from "./harness.mjs";

const root = new URL("..", import.meta.url).pathname;
const workspace = `${root}demo/nextjs/`;
const artifacts = `${root}e2e/artifacts/`;
const KEY = "gateway_circuit_v1";
const QUERIES = 10; // per portal page
const PORTALS = ["admin", "user"];

const built = PORTALS.every((p) => existsSync(`${workspace}${p}/.next/BUILD_ID`));

let gw, browser;
const portal = {}; // name -> { url, stop }

describe("twin Next.js portals in Chromium", () => {
  before(async () => {
    assert.ok(built, "the portals are not built: run `make nextjs-build` (demo/nextjs/nextjs.mk)");
    mkdirSync(artifacts, { recursive: true });
    gw = await startGateway();
    // A 60 s first open period (the default is 5 s): five reloads of a Next.js app fall in one period on a loaded
    // machine too, so what they send is what F5 sends while the circuit is open. Recovery is the matrix's.
    const started = await Promise.all(PORTALS.map((p) => startNext(`${workspace}${p}`, { GATEWAY_URL: gw.url, GATEWAY_CIRCUIT_TTL_MS: "60000" })));
    PORTALS.forEach((p, i) => (portal[p] = started[i]));
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await Promise.all(Object.values(portal).map((p) => p.stop()));
    await gw?.stop();
  });
  beforeEach(async () => {
    await gw.setMode({ status: 200 });
    await gw.reset();
  });

  /** A tab opened independently (its own sessionStorage) on a portal. */
  async function open(name, context) {
    const ctx = context ?? (await browser.newContext());
    const { page, problems } = await watchedPage(ctx);
    await recordCspViolations(page);
    await page.goto(portal[name].url + "/");
    return { page, problems, context: ctx };
  }

  /** window.__csp: every securitypolicyviolation, as "directive blockedURI". */
  const recordCspViolations = (page) =>
    page.addInitScript(() => {
      window.__csp = [];
      document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    });

  const settled = (page) => queriesSettled(page, QUERIES);
  const rowStates = (page) => page.$$eval('[data-testid="query"]', (rows) => rows.map((r) => r.dataset.state));
  const armedMark = (page) => page.evaluate(() => document.documentElement.getAttribute("data-gateway-circuit"));
  const overlayVisible = (page) => page.isVisible('[data-testid="overlay"]');
  const stored = (page) => page.evaluate((k) => sessionStorage.getItem(k), KEY);
  const csp = (page) => page.evaluate(() => window.__csp);

  /** Loads a portal against a 502 gateway: the circuit arms. */
  async function armedTab(name) {
    await gw.setMode({ status: 502 });
    const tab = await open(name);
    await settled(tab.page);
    await tab.page.waitForFunction(() => document.documentElement.dataset.gatewayCircuit === "armed", null, { timeout: 10_000 });
    assert.equal(await gw.count(`/api/${name}/`), QUERIES, `${name}: the first load reaches the gateway once per query (no retries)`);
    return tab;
  }

  for (const name of PORTALS) {
    test(`${name} portal: F5 storm, 5 reloads x ${QUERIES} queries reach the gateway 0 times; overlay restored`, async () => {
      const { page, problems, context } = await armedTab(name);
      const first = JSON.parse(await stored(page));
      assert.equal(first.httpStatus, 502);
      await gw.reset();
      for (let i = 1; i <= 5; i++) {
        await page.reload();
        assert.equal(await overlayVisible(page), true, `overlay visible as soon as reload ${i} loaded`);
        await settled(page);
        assert.deepEqual(await rowStates(page), Array(QUERIES).fill("error"));
        assert.equal(await page.textContent('[data-testid="overlay-status"]'), "502", `reload ${i}`);
        assert.match(await page.textContent("#gc-overlay-title"), /잠시 후 다시 시도해 주세요/);
      }
      assert.equal(await gw.count("/api/"), 0, "no request reached the gateway while the circuit was armed");
      assert.deepEqual(JSON.parse(await stored(page)), first, "reloads do not move the deadline");
      assert.equal(await page.textContent('[data-testid="query"] .detail'), "GATEWAY_CIRCUIT_OPEN 502");
      await page.screenshot({ path: `${artifacts}nextjs-${name}-overlay-after-f5.png` });
      assert.deepEqual(await csp(page), []);
      assert.deepEqual(problems, []);
      await context.close();
    });
  }

  test("no flash: the overlay is in the first frame after a reload, before any script but the inline marker", async () => {
    const { page, problems, context } = await armedTab("user");
    await gw.reset();
    // Hold back every external script (Next's chunks and the module) so the
    // page is caught as first painted: HTML, CSS and the inline marker only.
    const held = [];
    let holding = true;
    await page.route(/\.js(\?|$)/, (route) => (holding ? held.push(route) : route.continue()));
    await page.reload({ waitUntil: "domcontentloaded" });
    const before = await page.evaluate(() => ({
      mark: document.documentElement.getAttribute("data-gateway-circuit"),
      module: typeof window.gatewayCircuit,
      hydrated: Object.keys(document.querySelector('[data-testid="overlay"]')).some((k) => k.startsWith("__react")),
    }));
    await page.screenshot({ path: `${artifacts}nextjs-user-first-paint.png` });
    assert.deepEqual(before, { mark: "armed", module: "undefined", hydrated: false });
    assert.equal(await overlayVisible(page), true, "the overlay is visible before React or the module ran");
    assert.match(await page.textContent("#gc-overlay-title"), /잠시 후 다시 시도해 주세요/);

    holding = false;
    for (const r of held) await r.continue();
    await settled(page);
    assert.equal(await overlayVisible(page), true, "still visible after hydration (no close-and-reopen)");
    assert.equal(await page.textContent('[data-testid="overlay-status"]'), "502");
    assert.equal(await gw.count("/api/"), 0);
    assert.deepEqual(problems, [], "no hydration or console errors");
    await context.close();
  });

  test("a circuit armed in a user portal tab does not block tabs opened independently", async () => {
    const user = await armedTab("user");
    await gw.setMode({ status: 200 });
    await gw.reset();

    await user.page.reload();
    await settled(user.page);
    assert.equal(await gw.count("/api/"), 0, "the armed tab stays quiet");

    // The admin portal, in a new tab of the same browser: another origin, its own sessionStorage.
    const admin = await open("admin", user.context);
    await settled(admin.page);
    assert.deepEqual(await rowStates(admin.page), Array(QUERIES).fill("success"));
    assert.equal(await gw.count("/api/admin/"), QUERIES);
    assert.equal(await overlayVisible(admin.page), false);
    assert.equal(await armedMark(admin.page), null);

    // And the user portal itself, opened in a new tab (not a popup: sessionStorage starts empty).
    const user2 = await open("user", user.context);
    await settled(user2.page);
    assert.equal(await gw.count("/api/user/"), QUERIES);
    assert.equal(await overlayVisible(user2.page), false);
    assert.equal(await overlayVisible(user.page), true, "the first tab is still armed");

    assert.deepEqual([...user.problems, ...admin.problems, ...user2.problems], []);
    await user.context.close();
  });

  test("dismiss = tryAgain(): the overlay closes, one query probes, then every failed query reaches the gateway again", async () => {
    const { page, problems, context } = await armedTab("admin");
    await gw.setMode({ status: 200 });
    await gw.reset();
    await page.click('[data-testid="overlay-dismiss"]');
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="query"]')].every((r) => r.dataset.state === "success"), null, { timeout: 10_000 });
    assert.equal(await overlayVisible(page), false);
    assert.equal(await armedMark(page), null);
    assert.equal(await stored(page), null);
    assert.equal(await gw.count("/api/admin/"), QUERIES, "each failed query went out once more");
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("strict CSP with nonces + 'wasm-unsafe-eval': the engine's file and the wasm run, the wasm is fetched once (no preload), immutable, application/wasm", async () => {
    const { page, problems, context } = await open("user");
    const res = await fetch(portal.user.url + "/");
    const policy = res.headers.get("content-security-policy");
    assert.match(policy, /script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic' 'wasm-unsafe-eval'/);
    assert.doesNotMatch(policy, /'unsafe-inline'|'unsafe-eval'/);
    const html = await res.text();
    assert.doesNotMatch(html, /<link[^>]*rel="preload"[^>]*\.wasm|<link[^>]*\.wasm[^>]*rel="preload"/, "no high-priority preload of the wasm");
    const nonces = new Set([...html.matchAll(/nonce="([^"]+)"/g)].map((m) => m[1]));
    assert.deepEqual([...nonces], [policy.match(/'nonce-([^']+)'/)[1]], "the policy's nonce, on every script");
    const again = (await fetch(portal.user.url + "/")).headers.get("content-security-policy");
    assert.notEqual(again, policy, "a fresh nonce per request");

    await page.waitForFunction(() => window.gatewayCircuit?.status !== "loading", null, { timeout: 15_000 });
    assert.equal(await page.evaluate(() => window.gatewayCircuit.status), "ready");
    await settled(page);
    const wasmUrl = await page.evaluate(() => window.gatewayCircuit.options.wasmUrl);
    assert.match(wasmUrl, /\/_gc\/gateway-circuit\.[0-9a-f]{8,}\.wasm$/);
    assert.equal(await page.evaluate((u) => performance.getEntriesByName(u).length, wasmUrl), 1, "the module's own fetch, once");

    const wasm = await fetch(wasmUrl);
    assert.equal(wasm.headers.get("content-type"), "application/wasm");
    assert.match(wasm.headers.get("cache-control"), /max-age=31536000, immutable/);
    await wasm.arrayBuffer();

    // F5: the immutable wasm comes from the HTTP cache, not the server.
    await page.reload();
    await page.waitForFunction(() => window.gatewayCircuit?.status === "ready", null, { timeout: 15_000 });
    const fromCache = await page.evaluate((u) => performance.getEntriesByName(u).map((e) => e.transferSize), wasmUrl);
    assert.deepEqual(fromCache, [0], "one fetch, served from the cache");

    assert.deepEqual(await csp(page), []);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("without 'wasm-unsafe-eval' the wasm cannot start: the one addition Go wasm needs", async () => {
    const context = await browser.newContext();
    const { page, problems } = await watchedPage(context);
    await recordCspViolations(page);
    // The same page, its policy minus 'wasm-unsafe-eval'.
    await page.route(`${portal.user.url}/`, async (route) => {
      const res = await route.fetch();
      const headers = { ...res.headers() };
      headers["content-security-policy"] = headers["content-security-policy"].replace(" 'wasm-unsafe-eval'", "");
      await route.fulfill({ response: res, headers });
    });
    await page.goto(portal.user.url + "/");
    await page.waitForFunction(() => window.gatewayCircuit?.status !== "loading", null, { timeout: 15_000 });
    assert.equal(await page.evaluate(() => window.gatewayCircuit.status), "fallback");
    assert.match(await page.evaluate(() => String(window.gatewayCircuit.error)), /WebAssembly|CSP|Content Security Policy|wasm-unsafe-eval/i);
    await settled(page); // the page still works: the queries go out through the JS gate
    assert.deepEqual(await rowStates(page), Array(QUERIES).fill("success"));
    assert.deepEqual(await csp(page), ["script-src wasm-eval"], "the browser reports the blocked compilation");
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("an unreachable gateway is answered 502 by the portal's /api proxy, and that arms the circuit", async () => {
    const closed = await freePort(); // nothing listens there
    const lonely = await startNext(`${workspace}user`, { GATEWAY_URL: `http://127.0.0.1:${closed}` });
    try {
      const res = await fetch(`${lonely.url}/api/user/me`);
      assert.equal(res.status, 502);
      const context = await browser.newContext();
      const { page, problems } = await watchedPage(context);
      await page.goto(lonely.url + "/");
      await settled(page);
      await page.waitForFunction(() => document.documentElement.dataset.gatewayCircuit === "armed", null, { timeout: 10_000 });
      assert.equal(await page.textContent('[data-testid="overlay-status"]'), "502");
      assert.deepEqual(problems, []);
      await context.close();
    } finally {
      await lonely.stop();
    }
  });

  test("expiry closes the overlay and fetches the failed queries again by themselves; the next load reaches the gateway", async () => {
    // Its own portal server: data-ttl-ms comes from GATEWAY_CIRCUIT_TTL_MS at request time.
    // 4 s: long enough that a loaded machine still sees the overlay before the circuit expires (2 s was not, once).
    const short = await startNext(`${workspace}admin`, { GATEWAY_URL: gw.url, GATEWAY_CIRCUIT_TTL_MS: "4000" });
    try {
      await gw.setMode({ status: 502 });
      const context = await browser.newContext();
      const { page, problems } = await watchedPage(context);
      await page.goto(short.url + "/");
      await page.waitForFunction(() => document.documentElement.dataset.gatewayCircuit === "armed", null, { timeout: 10_000 });
      await page.waitForSelector('[data-testid="overlay"]', { state: "visible", timeout: 10_000 });
      await settled(page);
      await gw.setMode({ status: 200 });
      await gw.reset();
      await page.waitForFunction(() => !document.documentElement.hasAttribute("data-gateway-circuit"), null, { timeout: 10_000 });
      assert.equal(await overlayVisible(page), false, "the overlay closed when the circuit expired");
      // The queries the outage failed are fetched again by themselves (connectQueryClient): no reload needed.
      await page.waitForFunction(
        (n) => [...document.querySelectorAll('[data-testid="query"]')].filter((r) => r.dataset.state === "success").length === n,
        QUERIES,
        { timeout: 10_000 },
      );
      assert.equal(await gw.count("/api/admin/"), QUERIES);
      await page.reload();
      await settled(page);
      assert.deepEqual(await rowStates(page), Array(QUERIES).fill("success"));
      assert.equal(await gw.count("/api/admin/"), 2 * QUERIES);
      assert.deepEqual(problems, []);
      await context.close();
    } finally {
      await short.stop();
    }
  });

  test("the package imports in Node and under react-server without touching window", async () => {
    const run = promisify(execFile);
    const probe = `
      const m = await import("@gatewaycircuit/browser");
      const h = await import("@gatewaycircuit/browser/head");
      await m.gatewayCircuit.ready;
      console.log(JSON.stringify({ status: m.gatewayCircuit.status, read: m.gatewayCircuit.read(), unsub: typeof m.gatewayCircuit.subscribe(() => {}),
        script: h.assets.script, marker: h.markArmedScript.length > 0 }));`;
    for (const conditions of [[], ["--conditions=react-server"]]) {
      const { stdout } = await run(process.execPath, [...conditions, "--input-type=module", "-e", probe], { cwd: workspace });
      const got = JSON.parse(stdout);
      assert.deepEqual({ ...got, script: /^gateway-circuit\.[0-9a-f]{8,}\.js$/.test(got.script) }, {
        status: "fallback",
        read: null,
        unsub: "function",
        script: true,
        marker: true,
      }, conditions.join(" "));
    }
  });
});
