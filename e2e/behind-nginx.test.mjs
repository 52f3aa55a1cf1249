// The policies that respect the user, behind real nginx (Debian's), in
// Chromium. nginx is the gateway: its access log is the ground truth of what
// reached it. A small page server (pages, the built module, and a healthy
// API) stands behind it, so the page and its API are same-origin.
//
// Chromium only: these are about the policies, which are Go's and the same
// in every engine; the three-engine suites cover the engine differences.

import assert from "node:assert/strict";
import { createServer } from "node:http";
import { listenLoopback } from "./loopback.mjs";
import { after, before, describe, test } from "node:test";
import { build } from "esbuild";
import { launchBrowser, moduleFile, sleep } from "./harness.mjs";
import { startNginx } from "./nginx.mjs";

const root = new URL("..", import.meta.url).pathname;
const KEY = "gateway_circuit_v1";

/**
 * TanStack Query (query-core, from node_modules) for the browser, as
 * window.TanStack: the page of the flaky-API test uses it with its DEFAULT
 * options (3 retries after 1, 2 and 4 s), as a new user would.
 */
async function tanstackBundle() {
  const out = await build({
    stdin: { contents: 'export { QueryClient, QueryObserver } from "@tanstack/query-core";', resolveDir: root },
    bundle: true,
    format: "iife",
    globalName: "TanStack",
    target: "es2020",
    write: false,
    logLevel: "warning",
  });
  return out.outputFiles[0].text;
}

/**
 * The TanStack page: n queries (one per URL, so nothing is shared), fired at
 * once on load, through gatewayCircuit.fetch (module=on) or the browser's own
 * fetch (module=off, and no script tag). window.outcome resolves to how many
 * queries ended in success and in error once every one has settled.
 */
function tanstackPage(q) {
  const withModule = q.get("module") !== "off";
  const negative = q.get("negative-cache");
  const ttl = q.get("ttl-ms"); // the first open period (the module's default, 5 s, when absent)
  const api = q.get("api") ?? ""; // the API's origin, when not the page's
  const tag = withModule
    ? `<script src="/gateway-circuit.js" data-wasm="/gateway-circuit.wasm" data-scope="${api}/api/"${negative ? ` data-negative-cache="${negative}"` : ""}${ttl ? ` data-ttl-ms="${ttl}"` : ""}></script>`
    : "";
  return `<!doctype html><meta charset="utf-8"><title>TanStack behind nginx</title>
${tag}
<script src="/tanstack.js"></script>
<script>
  const doFetch = ${withModule ? "(u, init) => gatewayCircuit.fetch(u, init)" : "(u, init) => fetch(u, init)"};
  const client = new TanStack.QueryClient(); // TanStack's defaults: retry 3, 1 s / 2 s / 4 s apart
  const n = ${Number(q.get("queries") ?? 100)};
  window.outcome = Promise.all(Array.from({ length: n }, (_, i) => new Promise((resolve) => {
    const observer = new TanStack.QueryObserver(client, {
      queryKey: ["item", i],
      queryFn: async ({ signal }) => {
        const res = await doFetch(${JSON.stringify(api)} + "/api/items/" + i, { signal });
        if (!res.ok) throw new Error("HTTP " + res.status);
        return res.json();
      },
    });
    const stop = observer.subscribe((r) => {
      if (r.status !== "pending" && !r.isFetching) {
        stop();
        resolve(r.status);
      }
    });
  }))).then((all) => ({ success: all.filter((s) => s === "success").length, error: all.filter((s) => s === "error").length }));
</script>`;
}

/** Pages, the module, and a healthy API: what stands behind nginx. */
async function startPages() {
  const tanstack = await tanstackBundle();
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    if (url.pathname === "/tanstack.html") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
      return res.end(tanstackPage(url.searchParams));
    }
    if (url.pathname === "/tanstack.js") {
      res.writeHead(200, { "content-type": "text/javascript", "cache-control": "no-store" });
      return res.end(tanstack);
    }
    if (url.pathname === "/page.html") {
      const q = url.searchParams;
      const attrs = [...q].map(([k, v]) => ` data-${k}="${v}"`).join("");
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
      return res.end(`<!doctype html><meta charset="utf-8"><title>behind nginx</title>
<script src="/gateway-circuit.js" data-wasm="/gateway-circuit.wasm" data-scope="/api/"${attrs}></script>
<script>
  // n queries at once, as a page's mount fires them; the statuses they got.
  window.run = (n) => Promise.all(Array.from({ length: n }, (_, i) =>
    gatewayCircuit.fetch("/api/items/" + i).then((r) => r.status, () => 0)));
</script>`);
    }
    const file = moduleFile(url.pathname);
    if (file) {
      res.writeHead(200, { "content-type": file.type, "cache-control": "no-store" });
      return res.end(file.body);
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ path: url.pathname }));
  });
  return listenLoopback(server);
}

let pages, browser;
before(async () => {
  pages = await startPages();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await pages?.stop();
});

async function scenario(options, fn) {
  const nginx = await startNginx({ upstreamUrl: pages.url, ...options });
  const context = await browser.newContext();
  try {
    await fn(nginx, context);
  } finally {
    await context.close();
    await nginx.stop();
  }
}

async function open(context, nginx, query = "") {
  const page = await context.newPage();
  await page.goto(`${nginx.url}/page.html?${query}`);
  await page.waitForFunction(() => gatewayCircuit.status === "ready", null, { timeout: 10_000 });
  return page;
}

const api = (nginx) => nginx.count("/api/");

describe("behind real nginx", () => {
  for (const [name, options, status] of [
    ["a dead upstream (nginx's HTML 502)", { scenario: "dead" }, 502],
    ["a hanging upstream (nginx's HTML 504 after proxy_read_timeout)", { scenario: "hang", readTimeoutS: 1 }, 504],
  ]) {
    test(`${name} arms on the first load; 5 reloads send 0 requests`, () =>
      scenario(options, async (nginx, context) => {
        const page = await open(context, nginx, "ttl-ms=60000"); // a 60 s first open period: the reloads fall in it
        const first = await page.evaluate(() => run(10));
        assert.ok(first.every((s) => s === status || s === 503), `statuses ${first}`);
        assert.equal(await page.evaluate(() => gatewayCircuit.read()?.httpStatus), status);
        const reached = await api(nginx);
        assert.ok(reached >= 1 && reached <= 10, `${reached} requests on the first load`);
        assert.equal(await nginx.count("/api/", status), reached, `nginx answered each with its own ${status}`);
        for (let i = 0; i < 5; i++) {
          await page.reload();
          await page.waitForFunction(() => gatewayCircuit.status === "ready");
          const again = await page.evaluate(() => run(10));
          assert.ok(again.every((s) => s === 503), `reload ${i}: ${again}`);
        }
        assert.equal(await api(nginx), reached, "no request reached nginx over 5 reloads");
      }));
  }

  test("with a deadline the app set (data-timeout-ms), past it a call rejects with a TimeoutError and counts as a 504; 5 reloads send 0 requests", () =>
    scenario({ scenario: "hang", readTimeoutS: 60 }, async (nginx, context) => {
      const page = await open(context, nginx, "timeout-ms=1500&ttl-ms=60000");
      const first = await page.evaluate(() =>
        Promise.all(Array.from({ length: 5 }, (_, i) => gatewayCircuit.fetch("/api/items/" + i).then((r) => r.status, (e) => e.name))),
      );
      assert.deepEqual(first, Array(5).fill("TimeoutError"));
      assert.equal(await page.evaluate(() => gatewayCircuit.read()?.httpStatus), 504, "armed as by a 504");
      // One of the failed GETs again (a GET the open period has not seen would be its scout, and go out).
      const own = await page.evaluate(() => gatewayCircuit.fetch("/api/items/0", { timeout: false }).then((r) => r.status));
      assert.equal(own, 503, "armed: answered locally, whatever the call's deadline");
      for (let i = 0; i < 5; i++) {
        await page.reload();
        const again = await page.evaluate(() => run(5));
        assert.deepEqual(again, Array(5).fill(503), `reload ${i + 1}`);
      }
      await page.close(); // the aborted requests are logged (499) once the browser lets go of them
      await sleep(200);
      assert.equal(await api(nginx), 5, "the first load's requests, aborted at their deadline; nothing after");
    }));

  // Slow is not down: a page that goes away while its requests are pending
  // arms nothing (the API may only be slow). The hang is noticed when the
  // gateway says so, with its own 504, which arms like any trip status; the
  // reloads after it send nothing. The page behind nginx too, on the API's
  // origin (a 504 without CORS headers would be a network error to another).
  test("F5 during a hang arms nothing by itself; the gateway's own 504 arms, and the reloads after it send nothing", () =>
    scenario({ scenario: "hang", readTimeoutS: 3 }, async (nginx, context) => {
      const page = await context.newPage();
      // The queries go out on load; a 60 s open period, so the reloads below fall in it on a loaded machine too.
      await page.goto(`${nginx.url}/tanstack.html?queries=10&ttl-ms=60000`);
      await sleep(1500);
      await page.reload();
      await page.waitForFunction(() => gatewayCircuit.read()?.httpStatus === 504, null, { timeout: 10_000 });
      // Armed by the gateway's own 504 (3 s after a request was sent), not as the first page went away (1.5 s).
      const armedAt = (await page.evaluate(() => gatewayCircuit.read().until)) - 60_000;
      const first504 = Math.min(...(await nginx.entries()).filter((e) => e.uri.startsWith("/api/") && e.status === 504).map((e) => e.ms));
      assert.ok(armedAt >= first504 - 100, `armed at ${armedAt}, before the gateway's first 504 at ${first504}`);
      await sleep(3500); // every request of that load has ended (nginx logs a request when it ends)
      const reached = await api(nginx);
      for (let i = 0; i < 3; i++) {
        await page.reload();
        await sleep(300);
      }
      await page.close();
      await sleep(200);
      console.log(`F5 during a hang: ${reached} requests reached nginx before its 504 armed the circuit, then ${(await api(nginx)) - reached} over 3 reloads`);
      assert.equal(await api(nginx), reached, "nothing over the reloads once the gateway's 504 armed");
    }));

  test("F5 after the TTL sends one probe, not every query; a failed probe re-arms with the TTL doubled", () =>
    scenario({ scenario: "dead" }, async (nginx, context) => {
      const page = await open(context, nginx, "ttl-ms=1500");
      await page.evaluate(() => run(10));
      const armed = await page.evaluate(() => gatewayCircuit.read());
      assert.ok(armed, "armed");
      const reached = await api(nginx);
      await sleep(Math.max(0, armed.until - Date.now()) + 300);
      await page.reload();
      const statuses = await page.evaluate(() => run(10)); // fired at once, before the wasm is ready
      assert.equal(await api(nginx), reached + 1, `one probe reached nginx (statuses ${statuses})`);
      const rearmed = await page.evaluate(() => gatewayCircuit.read());
      assert.ok(rearmed, "re-armed by the failed probe");
      const ttl = rearmed.until - Date.now();
      assert.ok(ttl > 1600 && ttl <= 3000, `doubled TTL, ${ttl} ms left`);
    }));

  test("a rate limiter's 503 (limit_req's default) among successes is not an outage: no circuit, the page recovers", () =>
    scenario({ scenario: "limit503", limit: { rate: "5r/s", burst: 4 } }, async (nginx, context) => {
      const page = await open(context, nginx);
      const statuses = await page.evaluate(() => run(20));
      assert.ok(statuses.includes(200) && statuses.includes(503), `a mix: ${statuses}`);
      await sleep(300);
      assert.equal(await page.evaluate(() => gatewayCircuit.read()), null, "not armed");
      await sleep(1500);
      const later = await page.evaluate(async () => {
        const out = [];
        for (let i = 0; i < 3; i++) out.push((await gatewayCircuit.fetch("/api/items/later" + i)).status);
        return out;
      });
      assert.deepEqual(later, [200, 200, 200], "recovered within seconds");
      assert.equal(await page.evaluate(() => sessionStorage.getItem("gateway_circuit_v1")), null);
    }));

  test("a 429 without Retry-After (limit_req_status 429) pauses briefly, visibly, and the user's retry lifts it", () =>
    scenario({ scenario: "limit429", limit: { rate: "1r/s", burst: 1 } }, async (nginx, context) => {
      const page = await open(context, nginx);
      const statuses = await page.evaluate(() => run(6));
      assert.ok(statuses.includes(429) || statuses.includes(503), `statuses ${statuses}`);
      const blocking = await page.evaluate(() => gatewayCircuit.blocking());
      assert.equal(blocking.pauses.length, 1, JSON.stringify(blocking));
      const [pause] = blocking.pauses;
      assert.equal(pause.serverAsked, false);
      assert.ok(pause.until - Date.now() <= 10_000, `a short pause: ${pause.until - Date.now()} ms`);
      const before = await api(nginx);
      await sleep(1100); // the limiter's own window
      await page.evaluate(() => gatewayCircuit.clear());
      assert.deepEqual(await page.evaluate(() => gatewayCircuit.blocking().pauses), []);
      const after = await page.evaluate(async () => (await gatewayCircuit.fetch("/api/items/after")).status);
      assert.equal(after, 200);
      assert.equal(await api(nginx), before + 1);
    }));

  // TanStack's default options retry a failed query 3 times (1, 2, 4 s
  // apart): behind a flaky upstream or a rate limiter, a user almost never
  // sees an error without the module. The module must not make that worse:
  // a negative cache that answers a failed GET for 5 s eats those retries
  // (it used to, for every failure; then after a limiter's burst, whose trip
  // the circuit withdrew). Both runs of a scenario get the same nginx: the
  // same seeded failure sequence by order of arrival, the same limiter.
  async function errorsSeen(options, queries, failStatus) {
    const measured = {};
    for (const query of ["module=off", "module=on"]) {
      await scenario(options, async (nginx, context) => {
        const page = await context.newPage();
        await page.goto(`${nginx.url}/tanstack.html?queries=${queries}&${query}`);
        const outcome = await page.evaluate(() => window.outcome);
        const module = query === "module=on" ? await page.evaluate(() => gatewayCircuit.metrics()) : null;
        const armed = query === "module=on" ? await page.evaluate(() => gatewayCircuit.read()) : null;
        measured[query] = { ...outcome, requests: await api(nginx), failed: await nginx.count("/api/", failStatus), module, armed };
      });
    }
    const without = measured["module=off"];
    const withModule = measured["module=on"];
    console.log(`${options.scenario}, ${queries} TanStack queries: ${JSON.stringify(measured)}`);
    for (const [name, m] of Object.entries(measured)) {
      assert.equal(m.success + m.error, queries, `${name}: every query settled`);
      assert.ok(m.failed >= 3, `${name}: the gateway failed some requests (${m.failed} of ${m.requests} were ${failStatus}s)`);
    }
    assert.equal(withModule.module.negativeHits, 0, "no retry was answered by the negative cache");
    return { without, withModule };
  }

  test("a flaky upstream (10% random 500s): users of a TanStack page with default options see no more errors with the module than without", async () => {
    // Seeded by order of arrival: both runs meet the same failures.
    const { without, withModule } = await errorsSeen({ scenario: "flaky", failRate: 0.1, seed: 11 }, 300, 500);
    assert.ok(withModule.error <= without.error, `errors users saw: ${withModule.error} with the module, ${without.error} without`);
  });

  test("a rate limiter (limit_req's 503): users of a TanStack page with default options see the limiter's answers, not the module's", async () => {
    // A limiter's verdicts depend on timing (4 to 8 of 20 queries fail
    // without the module from run to run here), so the two runs' error
    // counts are not compared: what the module adds is. It may answer the
    // few calls made between a limiter's 503 and the success that withdraws
    // that trip; it must not answer the retries (negative cache, above), and
    // no circuit may be left armed.
    const { withModule } = await errorsSeen({ scenario: "limit503", limit: { rate: "4r/s", burst: 2 } }, 20, 503);
    const m = withModule.module;
    assert.ok(m.answeredLocally <= m.calls / 10, `the module answered ${m.answeredLocally} of ${m.calls} calls itself`);
    assert.equal(withModule.armed, null, "no circuit armed at the end");
  });
});
