// Fault injection in Chromium (issue 6): storage that throws or is full, a Go
// program that dies mid-request, gateways that hang, reset, answer without a
// body or opaquely, streamed request bodies, and navigation mid-request.
// For each: the page keeps working, every promise settles where native fetch
// would, nothing unhandled reaches the page, and — where the module is alive —
// what reaches the network follows the rules. Ground truth: the demo
// gateway's /fault/counts (demo/gateway/faults.go).
//
// A wasm that 404s is covered by circuit.test.mjs ("wasm missing (404)").
// The dying Go program needs build/faults/gateway-circuit.wasm
// (make build-faultwasm; make e2e-faults builds it).

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import { once } from "node:events";
import { after, before, beforeEach, describe, test } from "node:test";
import { spyOnGo } from "./gospy.mjs";
import { launchBrowser, startGateway } from "./harness.mjs";

const root = new URL("..", import.meta.url).pathname;
const FAULT_WASM = `${root}build/faults/gateway-circuit.wasm`;
const KEY = "gateway_circuit_v1";
let gw, browser, other;

/** A second origin (another port) that counts what reaches it, for no-cors. */
async function startOtherOrigin() {
  let count = 0;
  const srv = createServer((req, res) => {
    count++;
    const status = Number(req.url.slice(1)) || 200;
    res.writeHead(status, { "content-type": "text/plain", "cache-control": "no-store" });
    res.end("other origin");
  });
  srv.listen(0, "127.0.0.1");
  await once(srv, "listening");
  return {
    url: `http://127.0.0.1:${srv.address().port}`,
    count: () => count,
    reset: () => (count = 0),
    stop: () => new Promise((r) => srv.close(r)),
  };
}

before(async () => {
  gw = await startGateway();
  browser = await launchBrowser();
  other = await startOtherOrigin();
});
after(async () => {
  await browser?.close();
  await gw?.stop();
  await other?.stop();
});
beforeEach(async () => {
  await fetch(`${gw.url}/fault/reset`, { method: "POST" });
  other.reset();
});

/** Requests that reached /fault/ paths under prefix. */
async function reached(prefix = "/fault/api/") {
  const res = await fetch(`${gw.url}/fault/counts?prefix=${encodeURIComponent(prefix)}`);
  return (await res.json()).total;
}

/**
 * A fresh tab on /fault/page (or /fault/sandbox) with the module. `init` runs
 * before any page script. Returns the page, the frame the module runs in and
 * a problems() that collects pageerror, console.error and the page's own
 * unhandledrejection/error log.
 */
async function open({ query = {}, init, sandbox = false } = {}) {
  const context = await browser.newContext();
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  const seen = [];
  page.on("pageerror", (e) => seen.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) seen.push(`console.error: ${m.text()}`);
  });
  // A 1 ms burst: these tests are about faults, not the trip rule, so a trip
  // status arms even right after a success.
  const qs = new URLSearchParams({ scope: "/fault/", tripBurst: "1", ...query });
  await page.goto(`${gw.url}/fault/${sandbox ? "sandbox" : "page"}?${qs}`);
  const frame = sandbox ? page.frames().find((f) => f !== page.mainFrame()) : page.mainFrame();
  await frame.waitForFunction(() => window.gatewayCircuit && gatewayCircuit.status !== "loading", null, { timeout: 10_000 });
  const problems = async () => {
    const inPage = [];
    for (const f of page.frames()) inPage.push(...(await f.evaluate(() => window.__problems ?? []).catch(() => [])));
    return [...seen, ...inPage];
  };
  return { context, page, frame, problems };
}

/** What a settled promise looked like, in the page: {ok, status, type, error}. */
const SETTLE = `async (p) => {
  try { const r = await p; return { ok: true, status: r.status, type: r.type, open: r.headers.get("x-gateway-circuit") }; }
  catch (e) { return { ok: false, error: e && e.name }; }
}`;

/** The rules while storage cannot be used, run in whatever frame holds the module. */
async function rulesHoldInMemory(frame) {
  return frame.evaluate(async () => {
    const status = async (u, init) => (await gatewayCircuit.fetch(u, init)).status;
    const out = {};
    out.first = await status("/fault/api/status/502");
    out.read = gatewayCircuit.read()?.httpStatus ?? null;
    out.blocked = await status("/fault/api/status/502"); // asked again (a GET the open period has not seen would be its scout)
    gatewayCircuit.clear();
    out.afterClear = await status("/fault/api/ok");
    out.armManual = gatewayCircuit.arm(503, 60_000).httpStatus;
    out.blockedAgain = await status("/fault/api/ok");
    gatewayCircuit.clear();
    out.moduleStatus = gatewayCircuit.status;
    return out;
  });
}

const IN_MEMORY = { first: 502, read: 502, blocked: 503, afterClear: 200, armManual: 503, blockedAgain: 503, moduleStatus: "ready" };

describe("fault injection in Chromium", () => {
  test("storage: sandboxed iframe without allow-same-origin (sessionStorage throws SecurityError)", async () => {
    const { context, frame, problems } = await open({ sandbox: true });
    const denied = await frame.evaluate(() => {
      try {
        void window.sessionStorage;
        return false;
      } catch (e) {
        return e.name;
      }
    });
    assert.equal(denied, "SecurityError", "the frame really has no storage");
    assert.deepEqual(await rulesHoldInMemory(frame), IN_MEMORY);
    // first 502 + afterClear: the two blocked calls never reached the network.
    assert.equal(await reached("/fault/api/ok"), 1);
    assert.equal(await reached(), 2);
    assert.deepEqual(await problems(), []);
    await context.close();
  });

  test("storage: disabled (the sessionStorage getter throws)", async () => {
    const { context, frame, problems } = await open({
      init: () =>
        Object.defineProperty(window, "sessionStorage", {
          configurable: true,
          get() {
            throw new DOMException("storage is disabled", "SecurityError");
          },
        }),
    });
    assert.deepEqual(await rulesHoldInMemory(frame), IN_MEMORY);
    assert.equal(await reached(), 2);
    assert.deepEqual(await problems(), []);
    await context.close();
  });

  test("storage: every Storage method throws", async () => {
    const { context, frame, problems } = await open({
      init: () => {
        for (const m of ["getItem", "setItem", "removeItem", "key", "clear"]) {
          Storage.prototype[m] = () => {
            throw new DOMException(`${m} refused`, "SecurityError");
          };
        }
      },
    });
    assert.deepEqual(await rulesHoldInMemory(frame), IN_MEMORY);
    assert.equal(await reached(), 2);
    assert.deepEqual(await problems(), []);
    await context.close();
  });

  test("storage: quota exceeded on write (sessionStorage filled first)", async () => {
    const { context, page, frame, problems } = await open();
    const filled = await page.evaluate(() => {
      const chunk = "x".repeat(256 * 1024);
      let i = 0;
      try {
        for (; i < 1000; i++) sessionStorage.setItem(`filler${i}`, chunk);
      } catch (e) {
        // Fill the last bytes too, so even a 40-byte payload does not fit.
        for (let n = 128 * 1024; n >= 1; n = Math.floor(n / 2)) {
          try {
            sessionStorage.setItem(`tail${n}`, "y".repeat(n));
          } catch {}
        }
        return e.name;
      }
      return "never full";
    });
    assert.equal(filled, "QuotaExceededError");
    assert.deepEqual(await rulesHoldInMemory(frame), IN_MEMORY);
    assert.equal(await page.evaluate((k) => sessionStorage.getItem(k), KEY), null, "nothing could be written");
    // Armed in memory, then a reload: nothing was stored, so the new page starts closed.
    await frame.evaluate(() => gatewayCircuit.fetch("/fault/api/status/503"));
    assert.equal(await frame.evaluate(() => gatewayCircuit.read()?.httpStatus), 503);
    await page.reload();
    await page.waitForFunction(() => gatewayCircuit.status !== "loading");
    assert.equal(await page.evaluate(() => gatewayCircuit.read()), null);
    assert.equal(await page.evaluate(async () => (await gatewayCircuit.fetch("/fault/api/ok")).status), 200);
    assert.equal(await reached("/fault/api/ok"), 2, "afterClear, and the request after the reload");
    assert.deepEqual(await problems(), []);
    await context.close();
  });

  describe("the Go program dies mid-request (build/faults, -tags faultinject)", () => {
    before(() => assert.ok(existsSync(FAULT_WASM), `${FAULT_WASM} is missing: run make build-faultwasm`));
    const openFaulty = () => open({ query: { wasm: "/fault/wasm/faultinject.wasm" }, init: spyOnGo });

    for (const how of ["exit", "panic"]) {
      test(`Go ${how}s (from a callback) while requests are in flight`, async () => {
        const { context, page, problems } = await openFaulty();
        assert.equal(await page.evaluate(() => gatewayCircuit.status), "ready");
        const r = await page.evaluate(
          async ([how, SETTLE]) => {
            const settle = eval(SETTLE);
            // In flight when Go dies: a slow 200 and a slow-ish 502.
            const slowOk = gatewayCircuit.fetch("/fault/api/slow/400");
            const slow502 = fetch("/fault/api/slow/1").then(() => gatewayCircuit.fetch("/fault/api/status/502"));
            await new Promise((r) => setTimeout(r, 50));
            let thrown = null;
            try {
              __gcFault(how);
            } catch (e) {
              thrown = e.name;
            }
            const results = await Promise.all([settle(slowOk), settle(slow502)]);
            await new Promise((r) => setTimeout(r, 50));
            const out = { thrown, results, status: gatewayCircuit.status, armedBy502: gatewayCircuit.read() };
            // Fallback: arm/read/clear still work, and an armed circuit blocks.
            gatewayCircuit.arm(502, 60_000);
            out.blocked = (await gatewayCircuit.fetch("/fault/api/ok")).status;
            gatewayCircuit.clear();
            out.afterClear = (await gatewayCircuit.fetch("/fault/api/ok")).status;
            out.error = gatewayCircuit.error?.message;
            return out;
          },
          [how, SETTLE],
        );
        assert.equal(r.results[0].status, 200, "the in-flight request resolves with its response");
        assert.equal(r.results[1].ok, true, "the 502 settles");
        assert.equal(r.status, "fallback", `status after the Go program died (${r.error})`);
        assert.equal(r.blocked, 503, "the JS gate honours a circuit armed after the death");
        assert.equal(r.afterClear, 200);
        assert.equal(await reached("/fault/api/ok"), 1, "the blocked call never reached the network");
        assert.deepEqual(await problems(), []);
        await context.close();
      });
    }

    test("Go panics inside an export call; the next decision falls back", async () => {
      const { context, page, problems } = await openFaulty();
      const r = await page.evaluate(async (SETTLE) => {
        const settle = eval(SETTLE);
        const go = window.__go.at(-1);
        const inFlight = gatewayCircuit.fetch("/fault/api/slow/300");
        let thrown = null;
        try {
          go._inst.exports.gc_fault_panic();
        } catch (e) {
          thrown = String(e && (e.message || e));
        }
        const first = await settle(inFlight);
        const next = await settle(gatewayCircuit.fetch("/fault/api/status/502"));
        await new Promise((r) => setTimeout(r, 50));
        return { thrown, first, next, status: gatewayCircuit.status, exited: go.exited, read: gatewayCircuit.read() };
      }, SETTLE);
      assert.equal(r.first.status, 200, "the request in flight resolved");
      assert.equal(r.next.status, 502, "later requests go to the network and settle");
      assert.equal(r.exited, true, `the Go program is gone (export threw: ${r.thrown})`);
      assert.equal(r.status, "fallback");
      assert.deepEqual(await problems(), []);
      await context.close();
    });
  });

  test("a gateway that hangs: an AbortSignal settles it, and so does the module's deadline, where native fetch stays pending", async () => {
    const { context, page, problems } = await open();
    const r = await page.evaluate(async (SETTLE) => {
      const settle = eval(SETTLE);
      const ac = new AbortController();
      // Distinct URLs: Chromium's HTTP cache lock holds back a second
      // request to a URL already in flight, before it reaches the network.
      const aborted = settle(gatewayCircuit.fetch("/fault/api/hang?a", { signal: ac.signal }));
      const timedOut = settle(gatewayCircuit.fetch(new Request("/fault/api/hang?t", { signal: AbortSignal.timeout(300) })));
      // Without a signal: compared with native fetch over the same 1.5 s,
      // with the module's deadline (data-timeout-ms, 10 s) and a call's own.
      const states = {};
      gatewayCircuit.fetch("/fault/api/hang?m").then(() => (states.module = "resolved"), () => (states.module = "rejected"));
      gatewayCircuit.fetch("/fault/api/hang?d", { timeout: 800 }).then(() => (states.own = "resolved"), (e) => (states.own = e.name));
      fetch("/fault/api/hang?n").then(() => (states.native = "resolved"), () => (states.native = "rejected"));
      setTimeout(() => ac.abort(), 200);
      // The page keeps working while four requests hang.
      const meanwhile = (await gatewayCircuit.fetch("/fault/api/ok")).status;
      const res = { aborted: await aborted, timedOut: await timedOut, meanwhile };
      await new Promise((r) => setTimeout(r, 1500));
      res.withoutSignal = { module: states.module ?? "pending", own: states.own ?? "pending", native: states.native ?? "pending" };
      // An armed circuit still answers at once while those hang.
      gatewayCircuit.arm(502, 60_000);
      res.blocked = (await gatewayCircuit.fetch("/fault/api/hang?b")).status;
      gatewayCircuit.clear();
      return res;
    }, SETTLE);
    assert.deepEqual(r.aborted, { ok: false, error: "AbortError" });
    assert.deepEqual(r.timedOut, { ok: false, error: "TimeoutError" });
    assert.equal(r.meanwhile, 200);
    assert.deepEqual(r.withoutSignal, { module: "pending", own: "TimeoutError", native: "pending" }, "the call's own deadline, 800 ms, settled it; the page's is 10 s");
    assert.equal(r.blocked, 503);
    assert.equal(await reached("/fault/api/hang"), 5, "the blocked call never reached the network");
    await context.close(); // ends the two pending ones; nothing may surface as unhandled before that
    assert.deepEqual(await problems().catch(() => []), []);
  });

  test("a gateway that resets connections, or cuts the body short", async () => {
    const { context, page, problems } = await open();
    const r = await page.evaluate(async (SETTLE) => {
      const settle = eval(SETTLE);
      const out = {
        module: await settle(gatewayCircuit.fetch("/fault/api/reset")),
        native: await settle(fetch("/fault/api/reset")),
        post: await settle(gatewayCircuit.fetch("/fault/api/reset", { method: "POST", body: "x" })),
      };
      const cut = await gatewayCircuit.fetch("/fault/api/cut");
      out.cut = { status: cut.status, body: await cut.text().then(() => "read", (e) => e.name) };
      out.after = (await gatewayCircuit.fetch("/fault/api/ok")).status;
      out.armed = gatewayCircuit.read();
      return out;
    }, SETTLE);
    assert.deepEqual(r.module, r.native, "rejects as native fetch does");
    assert.deepEqual(r.module, { ok: false, error: "TypeError" });
    assert.deepEqual(r.post, { ok: false, error: "TypeError" });
    assert.deepEqual(r.cut, { status: 200, body: "TypeError" });
    assert.equal(r.after, 200, "the page keeps working");
    assert.equal(r.armed, null, "a network error is not a gateway status: the circuit stays closed");
    assert.deepEqual(await problems(), []);
    await context.close();
  });

  test("responses with no body: 204, HEAD (and a HEAD 502 arms)", async () => {
    const { context, page, problems } = await open();
    const r = await page.evaluate(async () => {
      const shape = async (r) => [r.status, r.body === null ? null : typeof r.body, await r.text()];
      const out = {
        nobody: await shape(await gatewayCircuit.fetch("/fault/api/nobody")),
        nativeNobody: await shape(await fetch("/fault/api/nobody?native")),
        head: await shape(await gatewayCircuit.fetch("/fault/api/ok", { method: "HEAD" })),
        nativeHead: await shape(await fetch("/fault/api/ok?native", { method: "HEAD" })),
      };
      const h502 = await gatewayCircuit.fetch("/fault/api/status/502", { method: "HEAD" });
      out.head502 = [h502.status, await h502.text(), gatewayCircuit.read()?.httpStatus];
      const blocked = await gatewayCircuit.fetch("/fault/api/status/502", { method: "HEAD" }); // asked again (a HEAD the open period has not seen would be its scout)
      out.blockedHead = [blocked.status, blocked.headers.get("x-gateway-circuit")];
      gatewayCircuit.clear();
      return out;
    });
    assert.equal(r.nativeNobody[0], 204);
    assert.deepEqual(r.nobody, r.nativeNobody, "the 204 reaches the caller as native fetch gives it");
    assert.deepEqual(r.head, r.nativeHead);
    assert.equal(r.head[2], "");
    assert.deepEqual(r.head502, [502, "", 502]);
    assert.deepEqual(r.blockedHead, [503, "open"]);
    assert.equal(await reached("/fault/api/ok"), 2, "the module's and native HEAD; the one made while armed never reached the network");
    assert.deepEqual(await problems(), []);
    await context.close();
  });

  test("opaque (no-cors) responses from another origin in scope: status 0 never arms", async () => {
    const { context, page, problems } = await open({ query: { scope: `/fault/,${other.url}/` } });
    const r = await page.evaluate(async (origin) => {
      const res = await gatewayCircuit.fetch(`${origin}/502`, { mode: "no-cors" });
      const out = { type: res.type, status: res.status, armed: gatewayCircuit.read() };
      gatewayCircuit.arm(504, 60_000);
      const blocked = await gatewayCircuit.fetch(`${origin}/200`, { mode: "no-cors" });
      out.blocked = [blocked.status, blocked.type, blocked.headers.get("x-gateway-circuit")];
      gatewayCircuit.clear();
      return out;
    }, other.url);
    assert.deepEqual(r, { type: "opaque", status: 0, armed: null, blocked: [503, "default", "open"] });
    assert.equal(other.count(), 1, "the call made while armed never reached the other origin");
    assert.deepEqual(await problems(), []);
    await context.close();
  });

  test("Request objects with streamed bodies (ReadableStream, duplex: 'half')", async () => {
    const { context, page, problems } = await open();
    const r = await page.evaluate(async (SETTLE) => {
      const settle = eval(SETTLE);
      const stream = () =>
        new ReadableStream({
          start(c) {
            c.enqueue(new TextEncoder().encode("streamed "));
            c.enqueue(new TextEncoder().encode("body"));
            c.close();
          },
        });
      const req = () => new Request("/fault/api/echo", { method: "POST", body: stream(), duplex: "half" });
      const out = {
        native: await settle(fetch(req())),
        module: await settle(gatewayCircuit.fetch(req())),
        init: await settle(gatewayCircuit.fetch("/fault/api/echo", { method: "POST", body: stream(), duplex: "half" })),
      };
      gatewayCircuit.arm(503, 60_000);
      const blockedReq = req();
      out.blocked = await settle(gatewayCircuit.fetch(blockedReq));
      gatewayCircuit.clear();
      return out;
    }, SETTLE);
    // Over HTTP/1.1 Chromium refuses streamed uploads; whatever native fetch
    // does, the module does the same, and it settles.
    assert.deepEqual({ ...r.module, open: null }, { ...r.native, open: null });
    assert.deepEqual(r.init.ok, r.native.ok);
    assert.deepEqual(r.blocked, { ok: true, status: 503, type: "default", open: "open" });
    const natives = r.native.ok ? 3 : 0;
    assert.equal(await reached("/fault/api/echo"), natives, "the blocked request never reached the network");
    assert.deepEqual(await problems(), []);
    await context.close();
  });

  test("the page navigates away mid-request; the next page works", async () => {
    const { context, page, problems } = await open();
    await page.evaluate(() => {
      for (let i = 0; i < 10; i++) gatewayCircuit.fetch(`/fault/api/slow/3000?i=${i}`);
      for (let i = 0; i < 5; i++) gatewayCircuit.fetch(`/fault/api/hang?i=${i}`);
      gatewayCircuit.fetch("/fault/api/status/502"); // its answer may arrive as the page goes
    });
    await page.waitForFunction(() => true);
    await page.goto(`${gw.url}/fault/page?scope=/fault/`);
    await page.waitForFunction(() => gatewayCircuit.status !== "loading", null, { timeout: 10_000 });
    const r = await page.evaluate(async () => ({
      status: gatewayCircuit.status,
      armed: gatewayCircuit.read(),
      ok: (await gatewayCircuit.fetch("/fault/api/ok")).status,
    }));
    assert.equal(r.status, "ready");
    // The 502 either arrived before the navigation (armed, stored, restored)
    // or not at all: both are the rules; a blocked /ok must then not reach the network.
    if (r.armed) {
      assert.equal(r.ok, 503);
      assert.equal(await reached("/fault/api/ok"), 0);
    } else {
      assert.equal(r.ok, 200);
      assert.equal(await reached("/fault/api/ok"), 1);
    }
    // Navigating while the wasm itself is still loading.
    // (Wait for the first navigation to commit, or it may interrupt the second.)
    await Promise.all([
      page.waitForURL(/again=1/, { waitUntil: "commit" }),
      page.evaluate(() => (location.href = "/fault/page?scope=/fault/&again=1")).catch(() => {}),
    ]);
    await page.goto(`${gw.url}/fault/page?scope=/fault/&third=1`);
    await page.waitForFunction(() => gatewayCircuit.status === "ready", null, { timeout: 10_000 });
    assert.deepEqual(await problems(), []);
    await context.close();
  });
});
