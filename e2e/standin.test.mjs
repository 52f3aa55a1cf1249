// The tag's stand-in and the load phases before Go runs, in Chromium, with
// the built files (dist/, or STANDIN_DIST) from a loopback server whose fake
// API counts what reaches it. Files are held back with Playwright routes: the
// facade's file (what the stand-in answers meanwhile, or when it never
// comes), the wasm (what the facade answers before Go).

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { launchBrowser, watchedPage } from "./harness.mjs";
import { listenLoopback } from "./loopback.mjs";

const root = new URL("..", import.meta.url).pathname;
const dist = process.env.STANDIN_DIST ?? join(root, "dist");

/** Pages by path: [tag attributes, extra response headers]. */
const PAGES = {
  "/": ['data-scope="/api/"', {}],
  "/capped.html": ['data-scope="/api/" data-max-ttl-ms="60000"', {}],
  "/bad-ttl.html": ['data-scope="/api/" data-ttl-ms="1e3"', {}],
  "/long-ttl.html": ['data-scope="/api/" data-ttl-ms="900000"', {}],
  "/trusted-types.html": ['data-scope="/api/"', { "content-security-policy": "require-trusted-types-for 'script'; trusted-types gatewaycircuit" }],
  "/no-policy.html": ['data-scope="/api/"', { "content-security-policy": "require-trusted-types-for 'script'; trusted-types 'none'" }],
};

// A call that never settles (the defects these tests guard against) fails its test after the timeout.
describe("the tag's stand-in, in Chromium", () => {
  let server;
  let browser;
  const counts = new Map();
  let answer = 502;

  before(async () => {
    const http = createServer((req, res) => {
      const path = new URL(req.url, "http://x").pathname;
      if (path.startsWith("/api/")) {
        counts.set(path, (counts.get(path) ?? 0) + 1);
        // A limiter's burst: /api/refused at once, /api/served a moment later.
        const status = path === "/api/refused" ? 503 : path === "/api/served" ? 200 : answer;
        const reply = () => res.writeHead(status, { "content-type": "text/plain" }).end(`${status}`);
        return path === "/api/served" ? setTimeout(reply, 300) : reply();
      }
      if (PAGES[path]) {
        const [attrs, headers] = PAGES[path];
        return res
          .writeHead(200, { "content-type": "text/html; charset=utf-8", ...headers })
          .end(`<!doctype html><html><head><script src="/gateway-circuit.js" ${attrs}></script></head><body></body></html>`);
      }
      const file = join(dist, path);
      if (!/^\/gateway-circuit[\w.-]*\.(js|wasm)$/.test(path) || !existsSync(file)) return res.writeHead(404).end();
      res.writeHead(200, { "content-type": path.endsWith(".wasm") ? "application/wasm" : "text/javascript" }).end(readFileSync(file));
    });
    server = await listenLoopback(http);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** A fresh tab whose facade's file is held back (ms, or for ever with null; 0: not held), and whose wasm is held back for ever when asked. */
  async function open(path, { facade = 1500, holdWasm = false } = {}) {
    const context = await browser.newContext();
    if (facade !== 0)
      await context.route(/gateway-circuit-facade\.[0-9a-f]+\.js$/, async (route) => {
        if (facade === null) return; // never answered
        await new Promise((r) => setTimeout(r, facade));
        await route.continue().catch(() => {}); // the page may be gone
      });
    if (holdWasm) await context.route(/\.wasm$/, () => {});
    const { page, problems } = await watchedPage(context);
    await page.goto(`${server.url}${path}`, { waitUntil: "commit" });
    await page.waitForFunction(() => window.gatewayCircuit !== undefined);
    return { context, page, problems };
  }

  test("before the facade's file runs, the stand-in clamps, shows and arms as the facade does", { timeout: 45_000 }, async () => {
    // [page, a circuit stored 10 years ahead, what is asked, the seconds it shows]
    const cases = [
      ["/", true, "read", 120],
      ["/capped.html", true, "read", 60],
      ["/bad-ttl.html", false, "arm", 5],
      ["/long-ttl.html", false, "arm-long", 120],
    ];
    for (const [path, stored, what, wantSeconds] of cases) {
      const context = await browser.newContext();
      await context.route(/gateway-circuit-facade\.[0-9a-f]+\.js$/, async (route) => {
        await new Promise((r) => setTimeout(r, 1500));
        await route.continue().catch(() => {});
      });
      if (stored) await context.addInitScript(() => sessionStorage.setItem("gateway_circuit_v1", JSON.stringify({ until: Date.now() + 315_360_000_000, httpStatus: 502 })));
      const { page, problems } = await watchedPage(context);
      await page.goto(`${server.url}${path}`, { waitUntil: "commit" });
      await page.waitForFunction(() => window.gatewayCircuit !== undefined);
      const got = await page.evaluate((what) => {
        const heard = [];
        gatewayCircuit.subscribe((s) => heard.push(s?.httpStatus ?? null));
        const status = gatewayCircuit.status;
        const s = what === "read" ? gatewayCircuit.read() : what === "arm" ? gatewayCircuit.arm(502) : gatewayCircuit.arm(502, 1e12);
        const stored = JSON.parse(sessionStorage.getItem("gateway_circuit_v1"));
        return { status, left: Math.round((s.until - Date.now()) / 1000), storedIsANumber: Number.isInteger(stored.until), heard };
      }, what);
      assert.equal(got.status, "loading", `${path}: the stand-in answered`);
      assert.ok(Math.abs(got.left - wantSeconds) <= 2, `${path} ${what}: ${got.left} s left, want ${wantSeconds}`);
      assert.ok(got.storedIsANumber, path);
      if (what !== "read") assert.deepEqual(got.heard, [502], `${path}: an early subscriber hears arm() at once`);
      // The facade, once it runs, shows the same.
      await page.waitForFunction(() => gatewayCircuit.options !== undefined);
      const later = await page.evaluate(() => Math.round((gatewayCircuit.read().until - Date.now()) / 1000));
      assert.ok(Math.abs(later - wantSeconds) <= 4, `${path}: the facade shows ${later} s left, want ${wantSeconds}`);
      assert.deepEqual(problems, []);
      await context.close();
    }
  });

  test("before the facade's file runs, a stored half-open circuit and a pause the server asked for show in blocking()", { timeout: 45_000 }, async () => {
    const context = await browser.newContext();
    await context.route(/gateway-circuit-facade\.[0-9a-f]+\.js$/, async (route) => {
      await new Promise((r) => setTimeout(r, 1500));
      await route.continue().catch(() => {});
    });
    await context.addInitScript(() => {
      const now = Date.now();
      sessionStorage.setItem("gateway_circuit_v1", JSON.stringify({ until: now - 1000, httpStatus: 502, halfOpenUntil: now + 60_000 }));
      sessionStorage.setItem("gateway_cooldown_v1", `${now + 60_000} 1 ${location.origin}/api/\nretry-after ${location.origin}/api/\n${now + 60_000} 65 ${location.origin}/other/\n`);
    });
    const { page, problems } = await watchedPage(context);
    await page.goto(`${server.url}/`, { waitUntil: "commit" });
    await page.waitForFunction(() => window.gatewayCircuit !== undefined);
    const got = await page.evaluate(() => {
      const b = gatewayCircuit.blocking();
      return { status: gatewayCircuit.status, halfOpen: b.halfOpen, pauses: b.pauses.map((p) => [new URL(p.service).pathname, p.serverAsked]) };
    });
    assert.deepEqual(got, { status: "loading", halfOpen: true, pauses: [["/api/", true]] }, "the line with 65 strikes is not one Go reads");
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a 502 answered before Go runs arms the stored circuit at once: the reload sends nothing", { timeout: 45_000 }, async () => {
    answer = 502;
    const { context, page, problems } = await open("/", { facade: 0, holdWasm: true });
    const got = await page.evaluate(async () => {
      const res = await gatewayCircuit.fetch("/api/before-go");
      // Sent by the tag's stand-in or by the facade, whichever ran first: the
      // facade arms it (at once, or when it takes the stand-in's call over).
      while (gatewayCircuit.read() === null) await new Promise((r) => setTimeout(r, 10));
      return { status: gatewayCircuit.status, answered: res.status, armed: gatewayCircuit.read()?.httpStatus ?? null };
    });
    assert.deepEqual(got, { status: "loading", answered: 502, armed: 502 });
    await page.reload({ waitUntil: "commit" });
    await page.waitForFunction(() => window.gatewayCircuit !== undefined);
    const again = await page.evaluate(async () => {
      const out = [];
      for (let i = 0; i < 5; i++) out.push((await gatewayCircuit.fetch("/api/before-go")).status);
      return { out, status: gatewayCircuit.status };
    });
    assert.deepEqual(again, { out: [503, 503, 503, 503, 503], status: "loading" });
    assert.equal(counts.get("/api/before-go"), 1, "only the first load's request reached the API");
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("Go, once it runs, judges the answers that came before it: a 503 of a burst that also succeeded is withdrawn", { timeout: 45_000 }, async () => {
    const context = await browser.newContext();
    let releaseWasm = () => {};
    const wasmHeld = new Promise((r) => (releaseWasm = r));
    await context.route(/\.wasm$/, async (route) => {
      await wasmHeld;
      await route.continue().catch(() => {});
    });
    const { page, problems } = await watchedPage(context);
    await page.goto(`${server.url}/`);
    const early = await page.evaluate(async () => {
      const served = gatewayCircuit.fetch("/api/served");
      const refused = await gatewayCircuit.fetch("/api/refused");
      const armed = gatewayCircuit.read()?.httpStatus ?? null;
      return { refused: refused.status, armed, served: (await served).status, status: gatewayCircuit.status };
    });
    assert.deepEqual(early, { refused: 503, armed: 503, served: 200, status: "loading" }, "armed at once by the early rule");
    releaseWasm();
    const judged = await page.evaluate(async () => {
      await gatewayCircuit.ready;
      return { status: gatewayCircuit.status, armed: gatewayCircuit.read(), stored: sessionStorage.getItem("gateway_circuit_v1") };
    });
    assert.deepEqual(judged, { status: "ready", armed: null, stored: null }, "Go's rule: a success of the same burst withdraws the trip");
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("without the facade's file (404), a stored circuit still blocks; calls do not wait", { timeout: 45_000 }, async (t) => {
    answer = 200;
    const context = await browser.newContext();
    await context.route(/gateway-circuit-facade\.[0-9a-f]+\.js$/, (route) => route.fulfill({ status: 404, body: "" }));
    await context.addInitScript(() => sessionStorage.setItem("gateway_circuit_v1", JSON.stringify({ until: Date.now() + 60_000, httpStatus: 502 })));
    const { page, problems } = await watchedPage(context);
    await page.goto(`${server.url}/`);
    const got = await page.evaluate(async () => {
      const error = await gatewayCircuit.ready.then(() => null, (e) => String(e));
      const res = await gatewayCircuit.fetch("/api/after-deploy");
      const post = await gatewayCircuit.fetch("/api/after-deploy", { method: "POST", body: "x" });
      return { status: gatewayCircuit.status, error, answered: [res.status, post.status], by: res.headers.get("x-gateway-circuit") };
    });
    assert.equal(got.status, "fallback");
    assert.match(got.error, /gateway-circuit-facade\.[0-9a-f]+\.js did not load/);
    assert.deepEqual([got.answered, got.by], [[503, 503], "open"]);
    assert.equal(counts.get("/api/after-deploy"), undefined, "answered before the network");
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("a facade's file that never answers is a failure after the bound: a waiting mutation is sent, status is fallback", { timeout: 45_000 }, async () => {
    answer = 200;
    const { context, page, problems } = await open("/", { facade: null });
    const got = await page.evaluate(async () => {
      const res = await gatewayCircuit.fetch("/api/never", { method: "POST", body: "x" });
      const error = await gatewayCircuit.ready.then(() => null, (e) => String(e));
      return { answered: res.status, status: gatewayCircuit.status, error };
    });
    assert.deepEqual([got.answered, got.status], [200, "fallback"]);
    assert.match(got.error, /did not run within 3000 ms/);
    assert.equal(counts.get("/api/never"), 1);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("under Trusted Types the tag loads its files through its policy: the module runs", { timeout: 45_000 }, async () => {
    answer = 200;
    const { context, page, problems } = await open("/trusted-types.html", { facade: 0 });
    const got = await page.evaluate(async () => {
      await gatewayCircuit.ready;
      const post = await gatewayCircuit.fetch("/api/tt", { method: "POST", body: "x" });
      return { status: gatewayCircuit.status, post: post.status };
    });
    assert.deepEqual(got, { status: "ready", post: 200 });
    assert.deepEqual(problems, []);
    await context.close();
  });

  test("under Trusted Types that refuse the tag's policy, the page keeps working (fallback) and a stored circuit still blocks", { timeout: 45_000 }, async () => {
    answer = 200;
    const context = await browser.newContext();
    await context.addInitScript(() => sessionStorage.setItem("gateway_circuit_v1", JSON.stringify({ until: Date.now() + 60_000, httpStatus: 502 })));
    const { page, problems } = await watchedPage(context);
    await page.goto(`${server.url}/no-policy.html`);
    const got = await page.evaluate(async () => {
      const error = await gatewayCircuit.ready.then(() => null, (e) => String(e));
      const held = await gatewayCircuit.fetch("/api/tt-none");
      sessionStorage.removeItem("gateway_circuit_v1");
      const post = await gatewayCircuit.fetch("/api/tt-none", { method: "POST", body: "x" });
      return { status: gatewayCircuit.status, error, held: held.status, post: post.status };
    });
    assert.equal(got.status, "fallback");
    assert.match(got.error, /could not be added/);
    assert.deepEqual([got.held, got.post], [503, 200]);
    assert.equal(counts.get("/api/tt-none"), 1, "the POST went out, the held GET did not");
    // Chromium reports the refused policy as a CSP violation in the console; nothing else.
    assert.ok(problems.every((p) => /Trusted Type|trusted-types|policy/i.test(p)), problems.join("\n"));
    await context.close();
  });
});
