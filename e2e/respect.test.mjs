// The policies that respect the user, end to end in each engine (driver/,
// E2E_ENGINE): logout and login in one tab, mutations before the wasm runs,
// a ledger that never blocks, instances that share a tab, a clock set back,
// a cross-origin scope, and the small ones. A small API server records every
// request it gets (method, path, user cookie, Idempotency-Key, preflights):
// that log is the ground truth.
//
// The rate limiter, the dead, hanging and flaky upstreams are in
// behind-nginx.test.mjs (real nginx, Chromium).

import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { listenLoopback } from "./loopback.mjs";
import { after, before, beforeEach, describe, test } from "node:test";
import { engine, injectingProxy, launch } from "./driver/index.mjs";
import { moduleFile, sleep } from "./harness.mjs";

const root = new URL("..", import.meta.url).pathname;

/** The overlay recipe of docs/api.md, verbatim: the html block after the sentence that introduces it. */
function overlayRecipe() {
  const readme = readFileSync(root + "docs/api.md", "utf8");
  const at = readme.indexOf("An overlay that shows every blocking state");
  const block = at < 0 ? null : /```html\n([\s\S]*?)\n```/.exec(readme.slice(at));
  if (!block) throw new Error("docs/api.md: the overlay recipe (\"An overlay that shows every blocking state\" and its html block) is missing");
  return block[1];
}

/**
 * The API and the pages. mode says how the API answers (tests set it from
 * here, never through the browser); log is every API request it got.
 */
async function startApi() {
  const log = [];
  const mode = {};
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, "http://x");
    const user = /(?:^|;\s*)user=([^;]*)/.exec(req.headers.cookie ?? "")?.[1] ?? "";
    const cors = req.headers.origin ? { "access-control-allow-origin": req.headers.origin } : {};
    const json = (status, body, headers = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...cors, ...headers }); // no no-store: stale copies may be kept
      res.end(JSON.stringify(body));
    };
    if (url.pathname === "/page.html") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
      return res.end(page(url.searchParams, `http://127.0.0.1:${server.address().port}`));
    }
    const file = moduleFile(url.pathname);
    if (file) {
      res.writeHead(200, { "content-type": file.type, "cache-control": "no-store" });
      return res.end(file.body);
    }
    if (url.pathname === "/login") return json(200, { user: url.searchParams.get("user") }, { "set-cookie": `user=${url.searchParams.get("user")}; Path=/` });
    if (url.pathname === "/logout") return json(200, {}, { "set-cookie": "user=; Path=/; Max-Age=0" });
    if (!url.pathname.startsWith("/api/")) return json(404, { error: "not found" });
    if (req.method === "OPTIONS") {
      log.push({ method: "OPTIONS", path: url.pathname, asked: req.headers["access-control-request-headers"] ?? "" });
      res.writeHead(204, {
        ...cors,
        "access-control-allow-methods": "GET, POST, PUT",
        "access-control-allow-headers": "content-type, idempotency-key",
      });
      return res.end();
    }
    for await (const _ of req); // the body
    const entry = { method: req.method, path: url.pathname, query: url.search, user, key: req.headers["idempotency-key"] ?? null, auth: req.headers.authorization ?? null };
    log.push(entry);
    const m = mode[url.pathname] ?? {};
    if (m.delayMs) await sleep(m.delayMs);
    const status = m.status ?? (req.method === "GET" ? 200 : 201);
    json(status, { user, auth: entry.auth, n: log.length }, m.retryAfter === undefined ? {} : { "retry-after": m.retryAfter });
  });
  const { url, stop } = await listenLoopback(server);
  return {
    url,
    log,
    mode,
    /** API requests (not preflights) whose path starts with prefix. */
    count: (prefix = "/api/", method) => log.filter((e) => e.method !== "OPTIONS" && e.path.startsWith(prefix) && (!method || e.method === method)).length,
    reset() {
      log.length = 0;
      for (const k of Object.keys(mode)) delete mode[k];
    },
    stop,
  };
}

/**
 * The test page: the module's tag with the query's data-* attributes ("{api}"
 * in a value is the API server's own origin, which is not the page's: the
 * page comes through the injecting proxy), a second tag when asked, and, with boot=retry-order, a POST fired at once
 * on load — the retry an app fires right after F5, before the wasm runs.
 */
function page(q, apiOrigin) {
  const attrs = [];
  let second = "";
  let boot = "";
  for (const [k, v] of q) {
    if (k === "second") second = `<script src="/gateway-circuit.js" data-wasm="/gateway-circuit.wasm" ${v}></script>`;
    else if (k === "recipe") second = overlayRecipe();
    else if (k === "boot") boot = v;
    else attrs.push(` data-${k}="${v.replace("{api}", apiOrigin)}"`);
  }
  return `<!doctype html><meta charset="utf-8"><title>respect</title>
<script src="/gateway-circuit.js"${q.has("wasm") ? "" : ' data-wasm="/gateway-circuit.wasm"'}${attrs.join("")}></script>${second}
<script>
  window.order = (item, headers = {}, url = "/api/orders") =>
    gatewayCircuit.fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ item }) })
      .then((r) => r.status, (e) => e.name);
  // The logout recipe of docs/api.md: the server ends the session, then the
  // module forgets what belonged to the user.
  window.logout = async () => {
    await fetch("/logout");
    gatewayCircuit.forget();
  };
  window.login = (user) => fetch("/login?user=" + user);
  window.me = (headers) => gatewayCircuit.fetch("/api/me", { headers }).then(async (r) => ({ status: r.status, marker: r.headers.get("x-gateway-circuit"), body: await r.text() }));
  ${boot === "retry-order" ? 'window.booted = order("tea");' : ""}
</script>`;
}

let api, proxy, browser;
before(async () => {
  api = await startApi();
  proxy = await injectingProxy(api.url);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await proxy?.stop();
  await api?.stop();
});
beforeEach(() => api.reset());

/** A fresh tab (its own context: cookies, storage) on the test page, once the module is ready. */
async function open(query = "", { warnings = false } = {}) {
  const context = await browser.newContext();
  if (warnings) {
    await context.addInitScript(() => {
      window.__warnings = [];
      const warn = console.warn;
      console.warn = (...args) => {
        window.__warnings.push(args.map(String).join(" "));
        warn.apply(console, args);
      };
    });
  }
  const page = await context.newPage();
  await page.goto(`${proxy.url}/page.html?${query}`);
  await ready(page);
  return { page, context };
}

const ready = (page) => page.waitForFunction(() => gatewayCircuit.status !== "loading", null, { timeout: 10_000 });

/** Until the API got n requests under prefix. */
async function reached(n, prefix = "/api/", timeout = 10_000) {
  for (const end = Date.now() + timeout; api.count(prefix) < n; await sleep(10)) {
    if (Date.now() > end) throw new Error(`no ${n} request(s) to ${prefix} in ${timeout} ms`);
  }
}

const keysOf = (prefix = "/api/orders") => api.log.filter((e) => e.method === "POST" && e.path.startsWith(prefix)).map((e) => e.key);

describe(`the user comes first, in ${engine}`, () => {
  describe("logout and login in one tab (cookie auth): the next user never gets the last one's", () => {
    test("stale copy, also after clear()", async () => {
      const { page, context } = await open("scope=/api/&stale=on");
      await page.evaluate(() => login("alice"));
      assert.match((await page.evaluate(() => me())).body, /"user":"alice"/);
      await page.waitForFunction(() => gatewayCircuit.diagnostics().staleCopies === 1);
      await page.evaluate(() => logout());
      assert.equal(await page.evaluate(() => gatewayCircuit.diagnostics().staleCopies), 0, "forget() dropped the copy");
      await page.evaluate(() => login("bob"));
      api.mode["/api/me"] = { status: 502 };
      const failed = await page.evaluate(() => me());
      assert.equal(failed.status, 502, `Bob gets the gateway's answer: ${JSON.stringify(failed)}`);
      await page.evaluate(() => gatewayCircuit.arm(502)); // armed: a stale copy would answer now
      const armed = await page.evaluate(() => me());
      assert.deepEqual([armed.status, armed.marker], [503, "open"]);
      await page.evaluate(() => gatewayCircuit.clear());
      const cleared = await page.evaluate(() => me());
      assert.equal(cleared.status, 502);
      for (const r of [failed, armed, cleared]) assert.doesNotMatch(r.body, /alice/);
      assert.deepEqual(api.log.map((e) => e.user), ["alice", "bob", "bob"], "what reached the API, by user");
      assert.deepEqual(await page.problems(), []);
      await context.close();
    });

    test("request in flight: Bob's GET is his own request", async () => {
      const { page, context } = await open("scope=/api/");
      await page.evaluate(() => login("alice"));
      api.mode["/api/me"] = { delayMs: 3000 };
      await page.evaluate(() => {
        window.alice = me();
      });
      await reached(1);
      const [alice, bob] = await page.evaluate(async () => {
        await logout();
        await login("bob");
        const bob = me(); // while Alice's request is still in flight
        return [await window.alice, await bob];
      });
      assert.match(alice.body, /"user":"alice"/);
      assert.match(bob.body, /"user":"bob"/, "Bob did not join Alice's request");
      assert.deepEqual(api.log.map((e) => e.user), ["alice", "bob"]);
      assert.equal(await page.evaluate(() => gatewayCircuit.metrics().coalesced), 0);
      assert.deepEqual(await page.problems(), []);
      await context.close();
    });

    test("failed mutation's key: Bob's same order is a new action", async () => {
      const { page, context } = await open("scope=/api/");
      await page.evaluate(() => login("alice"));
      api.mode["/api/orders"] = { status: 500 };
      assert.equal(await page.evaluate(() => order("tea")), 500);
      assert.equal(await page.evaluate(() => order("tea")), 500, "Alice's own retry");
      await page.evaluate(() => logout());
      await page.evaluate(() => login("bob"));
      api.mode["/api/orders"] = { status: 201 };
      assert.equal(await page.evaluate(() => order("tea")), 201);
      const [a1, a2, b] = keysOf();
      assert.ok(a1, "a key was sent");
      assert.equal(a2, a1, "Alice's retry reused her key");
      assert.notEqual(b, a1, "Bob got a key of his own");
      assert.deepEqual(api.log.map((e) => e.user), ["alice", "alice", "bob"]);
      assert.deepEqual(await page.problems(), []);
      await context.close();
    });

    test("without forget(), another Authorization header is another user: no stale copy, no shared request, no shared key", async () => {
      const { page, context } = await open("scope=/api/&stale=on");
      const alice = { authorization: "Bearer alice-token" };
      const bob = { authorization: "Bearer bob-token" };
      assert.equal((await page.evaluate((h) => me(h), alice)).status, 200);
      await page.waitForFunction(() => gatewayCircuit.diagnostics().staleCopies === 1);
      api.mode["/api/me"] = { status: 502 };
      const got = await page.evaluate((h) => me(h), bob);
      assert.equal(got.status, 502);
      assert.doesNotMatch(got.body, /alice/);
      await page.evaluate(() => gatewayCircuit.clear());
      api.mode["/api/me"] = { delayMs: 500 };
      const both = await page.evaluate(([a, b]) => Promise.all([me(a), me(b)]), [alice, bob]);
      assert.deepEqual(both.map((r) => JSON.parse(r.body).auth), [alice.authorization, bob.authorization], "each got their own answer");
      assert.equal(api.count("/api/me"), 4, "two requests, not one shared");
      api.mode["/api/orders"] = { status: 500 };
      await page.evaluate((h) => order("tea", h), alice);
      await page.evaluate((h) => order("tea", h), bob);
      const [ka, kb] = keysOf();
      assert.ok(ka && kb && ka !== kb, `keys ${ka} ${kb}`);
      assert.deepEqual(await page.problems(), []);
      await context.close();
    });
  });

  test("a mutation fired right after F5, before the wasm runs, reuses its key (and waits for the wasm)", async () => {
    const { page, context } = await open("scope=/api/", { warnings: true });
    api.mode["/api/orders"] = { status: 500 }; // no definitive answer: the key stays pending
    assert.equal(await page.evaluate(() => order("tea")), 500);
    api.mode["/api/orders"] = { status: 201 };
    // The reloaded page's retry runs in its first script, while the module is still loading.
    await page.goto(`${proxy.url}/page.html?scope=/api/&boot=retry-order`);
    assert.equal(await page.evaluate(() => window.booted), 201);
    const [first, retry] = keysOf();
    assert.ok(first, "the first attempt had a key");
    assert.equal(retry, first, "the retry after F5 reused it");
    assert.deepEqual(await page.evaluate(() => window.__warnings), [], "no warning: it was held until ready, not sent bare");
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  test("the ledger never blocks: 70 failed actions, then more, all sent with keys, also after F5 and clear()", async () => {
    const { page, context } = await open("scope=/api/");
    api.mode["/api/orders"] = { status: 500 };
    const statuses = await page.evaluate(async () => {
      const out = [];
      for (let i = 0; i < 70; i++) out.push(await order("item-" + i));
      return out;
    });
    assert.ok(statuses.every((s) => s === 500), `statuses ${[...new Set(statuses)]}`);
    api.mode["/api/orders"] = { status: 201 };
    await page.reload();
    await ready(page);
    await page.evaluate(() => gatewayCircuit.clear());
    const later = await page.evaluate(async () => {
      const out = [];
      for (let i = 0; i < 70; i++) out.push(await order("fast-" + i)); // 70 quick successes
      out.push(await order("last"));
      return out;
    });
    assert.ok(later.every((s) => s === 201), `statuses ${[...new Set(later)]}`);
    const keys = keysOf();
    assert.equal(keys.length, 141, "every action reached the API");
    assert.ok(keys.every(Boolean), "each with a key");
    assert.equal(new Set(keys).size, 141, "one key per action");
    const stored = await page.evaluate(() => sessionStorage.getItem("gateway_idempotency_v1") ?? "");
    assert.ok(stored.split("\n").length <= 70, `the ledger stays bounded (${stored.split("\n").length} lines)`);
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  test("one action, one key: a caller's own key is sent verbatim; no query string is stored", async () => {
    const { page, context } = await open("scope=/api/");
    assert.equal(await page.evaluate(() => order("tea", { "idempotency-key": "order-123" })), 201);
    api.mode["/api/orders"] = { status: 500 };
    assert.equal(await page.evaluate(() => order("tea", {}, "/api/orders?api_key=SECRET-123")), 500);
    assert.deepEqual(keysOf().slice(0, 1), ["order-123"]);
    const stored = await page.evaluate(() => JSON.stringify(sessionStorage));
    assert.doesNotMatch(stored, /SECRET-123|api_key/, "the query string stays out of sessionStorage");
    assert.match(stored, /gateway_idempotency_v1/, "the pending action is stored");
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  test("two instances in one tab (a page and its iframe) keep each other's pending keys", async () => {
    const { page, context } = await open("scope=/api/");
    api.mode["/api/orders"] = { status: 500 };
    await page.evaluate(async () => {
      const frame = document.createElement("iframe");
      frame.src = "/page.html?scope=/api/";
      document.body.append(frame);
      await new Promise((r) => frame.addEventListener("load", r, { once: true }));
      await frame.contentWindow.gatewayCircuit.ready;
      window.frameStatus = await frame.contentWindow.order("from-the-frame");
    });
    assert.equal(await page.evaluate(() => window.frameStatus), 500);
    assert.equal(await page.evaluate(() => order("from-the-page")), 500, "the page writes its ledger after the frame did");
    await page.reload();
    await ready(page);
    api.mode["/api/orders"] = { status: 201 };
    assert.equal(await page.evaluate(() => order("from-the-frame")), 201, "the frame's action, retried after F5");
    const [frameKey, , retryKey] = keysOf();
    assert.equal(retryKey, frameKey, "the page's write kept the frame's pending key");
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  // A frame of the same origin runs its own instance on the tab's
  // sessionStorage: what one of them arms or clears, the other holds before
  // the call that did it returns (the same task), and its subscribers hear it.
  test("a page and its iframe agree on the circuit at once: the frame's arm blocks the page, the page's clear opens the frame", async () => {
    const { page, context } = await open("scope=/api/");
    const r = await page.evaluate(async (otherOrigin) => {
      const load = (src) => {
        const frame = document.createElement("iframe");
        frame.src = src;
        document.body.append(frame);
        return new Promise((r) => frame.addEventListener("load", () => r(frame.contentWindow), { once: true }));
      };
      await load(`${otherOrigin}/page.html?scope=/api/`); // another origin in the tab: its instance cannot be reached, nor need be
      const inner = await load("/page.html?scope=/api/");
      await inner.gatewayCircuit.ready;
      const heard = [];
      gatewayCircuit.subscribe((s) => heard.push(s ? s.httpStatus : null));
      const out = {};
      inner.gatewayCircuit.arm(502);
      out.pageRead = gatewayCircuit.read()?.httpStatus ?? null; // the same task
      out.pageBlocking = gatewayCircuit.blocking().circuit?.httpStatus ?? null;
      out.pageMe = await me();
      gatewayCircuit.clear();
      out.frameRead = inner.gatewayCircuit.read();
      out.frameMe = await inner.me();
      out.heard = heard;
      return out;
    }, api.url);
    assert.equal(r.pageRead, 502, "the page reads the frame's circuit in the same task");
    assert.equal(r.pageBlocking, 502);
    assert.deepEqual([r.pageMe.status, r.pageMe.marker], [503, "open"], "the page is blocked");
    assert.equal(r.frameRead, null, "the frame reads the page's clear in the same task");
    assert.equal(r.frameMe.status, 200, `the frame's request goes out: ${JSON.stringify(r.frameMe)}`);
    assert.deepEqual(r.heard, [502, null], "the page's subscribers heard both");
    assert.equal(api.count("/api/me"), 1, "only the frame's request after the clear reached the API");
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  test("a page and its iframe agree on what the gateway said: a 502 or a 429 the frame got blocks the page", async () => {
    // Two services: the pause of one leaves the other to trip the circuit.
    const { page, context } = await open("scope=/api/me,/api/orders");
    await page.evaluate(async () => {
      const frame = document.createElement("iframe");
      frame.src = "/page.html?scope=/api/me,/api/orders";
      document.body.append(frame);
      await new Promise((r) => frame.addEventListener("load", r, { once: true }));
      window.inner = frame.contentWindow;
      await inner.gatewayCircuit.ready;
    });
    api.mode["/api/me"] = { status: 502 };
    assert.equal((await page.evaluate(() => inner.me())).status, 502, "the frame got the 502");
    assert.equal(await page.evaluate(() => gatewayCircuit.read()?.httpStatus), 502, "the page holds the frame's circuit");
    assert.equal((await page.evaluate(() => me())).marker, "open");
    assert.equal(api.count("/api/me"), 1, "the page's request did not reach the API");
    await page.evaluate(() => gatewayCircuit.clear());
    api.mode["/api/orders"] = { status: 429, retryAfter: "60" };
    assert.equal(await page.evaluate(() => inner.order("tea")), 429, "the frame got the 429");
    assert.equal(await page.evaluate(() => gatewayCircuit.blocking().pauses.length), 1, "the page holds the frame's pause");
    assert.equal(await page.evaluate(() => gatewayCircuit.fetch("/api/orders").then((r) => r.headers.get("x-gateway-circuit"))), "cooldown");
    assert.equal(api.count("/api/orders"), 1, "the page's request did not reach the API");
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  test("a circuit an app writes to the stored key in a frame is read by the page's instance (the storage event)", async () => {
    const { page, context } = await open("scope=/api/");
    const r = await page.evaluate(async () => {
      const frame = document.createElement("iframe");
      frame.src = "/page.html?scope=/api/";
      document.body.append(frame);
      await new Promise((r) => frame.addEventListener("load", r, { once: true }));
      const event = new Promise((r) => addEventListener("storage", r, { once: true }));
      frame.contentWindow.sessionStorage.setItem("gateway_circuit_v1", JSON.stringify({ until: Date.now() + 60_000, httpStatus: 504 }));
      await event; // the module's own listener came first
      return { read: gatewayCircuit.read()?.httpStatus ?? null, me: await me() };
    });
    assert.equal(r.read, 504);
    assert.deepEqual([r.me.status, r.me.marker], [503, "open"]);
    assert.equal(api.count("/api/me"), 0);
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  // A page restored by Back/Forward keeps its memory. The event is dispatched
  // here (PageTransitionEvent, persisted: true): whether an engine keeps a
  // page in its back/forward cache under automation is its own choice.
  test("a page restored from the back/forward cache reads the circuit armed and cleared meanwhile", async () => {
    const { page, context } = await open("scope=/api/");
    const restored = () => dispatchEvent(new PageTransitionEvent("pageshow", { persisted: true }));
    // Another page of the tab armed the circuit while this one was in the cache.
    await page.evaluate(() => sessionStorage.setItem("gateway_circuit_v1", JSON.stringify({ until: Date.now() + 60_000, httpStatus: 502 })));
    await page.evaluate(restored);
    const armed = await page.evaluate(() => me());
    assert.deepEqual([armed.status, armed.marker], [503, "open"]);
    assert.equal(await page.evaluate(() => gatewayCircuit.blocking().circuit?.httpStatus), 502);
    assert.equal(api.count(), 0, "blocked before the network");
    // ... and cleared it again (the user pressed "try again" there).
    await page.evaluate(() => sessionStorage.removeItem("gateway_circuit_v1"));
    await page.evaluate(restored);
    assert.equal((await page.evaluate(() => me())).status, 200);
    assert.equal(api.count(), 1);
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  test("a wall clock set back an hour does not hold the tab: the 1 s circuit ends after 1 s", async () => {
    const { page, context } = await open("scope=/api/&ttl-ms=1000");
    api.mode["/api/me"] = { status: 502 };
    assert.equal((await page.evaluate(() => me())).status, 502);
    assert.ok(await page.evaluate(() => gatewayCircuit.read()), "armed");
    await page.evaluate(() => {
      const real = Date.now;
      Date.now = () => real() - 3_600_000; // the clock set back by an hour
    });
    await sleep(1300);
    api.mode["/api/me"] = { status: 200 };
    const after = await page.evaluate(() => me());
    assert.equal(after.status, 200, `the circuit ended on time: ${JSON.stringify(after)}`);
    assert.equal(api.count("/api/me"), 2);
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  test("a 429 with a malformed Retry-After (0.5) is a short pause the module chose: visible, survives F5, ended by clear()", async () => {
    const { page, context } = await open("scope=/api/");
    api.mode["/api/orders"] = { status: 429, retryAfter: "0.5" };
    const t = Date.now();
    assert.equal(await page.evaluate(() => order("tea")), 429, "waited out once, then the server's answer");
    assert.ok(Date.now() - t >= 4500, "the one retry waited the 5 s default, not 0.5 s");
    const { pauses } = await page.evaluate(() => gatewayCircuit.blocking());
    assert.equal(pauses.length, 1);
    assert.equal(pauses[0].serverAsked, false);
    const left = pauses[0].until - Date.now();
    assert.ok(left > 0 && left <= 10_000, `a short pause (${left} ms left), never 300 s`);
    await page.reload();
    await ready(page);
    assert.equal((await page.evaluate(() => gatewayCircuit.blocking())).pauses.length, 1, "still visible after F5");
    await page.evaluate(() => gatewayCircuit.clear());
    assert.deepEqual(await page.evaluate(() => gatewayCircuit.blocking().pauses), []);
    api.mode["/api/orders"] = { status: 201 };
    assert.equal(await page.evaluate(() => order("tea")), 201);
    assert.equal(api.count("/api/orders"), 3, "the 429, its one retry, and the one after clear()");
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  test("the overlay recipe of docs/api.md shows the circuit, the probe and the pauses, and its button ends what the module chose", async () => {
    const { page, context } = await open("scope=/api/&ttl-ms=3000&recipe=overlay"); // 3 s: the armed overlay is read before the TTL ends, on a loaded machine too
    const overlay = () => page.evaluate(() => (document.getElementById("overlay").hidden ? "" : document.getElementById("why").textContent));
    assert.equal(await overlay(), "");
    api.mode["/api/me"] = { status: 502 };
    await page.evaluate(() => me());
    assert.match(await overlay(), /^\(gateway 502, until .+\)$/);
    await page.waitForFunction(() => /checking/.test(document.getElementById("why").textContent), null, { timeout: 10_000 });
    assert.equal(await overlay(), "(checking whether the gateway is back)", "the TTL is over: half-open");
    api.mode["/api/me"] = { status: 200 };
    assert.equal((await page.evaluate(() => me())).status, 200, "the probe");
    assert.equal(await overlay(), "", "the probe succeeded: closed");
    api.mode["/api/orders"] = { status: 429, retryAfter: "60" };
    assert.equal(await page.evaluate(() => order("tea")), 429);
    assert.match(await overlay(), /^\(rate limited by the server, until .+\)$/);
    await page.click("#retry");
    assert.match(await overlay(), /by the server/, "a pause the server asked for stays");
    await page.evaluate(() => sessionStorage.clear());
    await page.reload();
    await ready(page);
    api.mode["/api/orders"] = { status: 429 }; // no Retry-After: the module chooses (5 s, waited out once, then 10 s)
    assert.equal(await page.evaluate(() => order("tea")), 429);
    assert.match(await overlay(), /^\(rate limited, until .+\)$/);
    await page.click("#retry");
    assert.equal(await overlay(), "", "the user's retry ended the module's own pause");
    assert.equal(api.count("/api/orders"), 3);
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  describe("a scope on another origin (a second 127.0.0.1 port)", () => {
    const crossPage = (more = "") => `scope={api}/api/${more}`;
    for (const [name, query, keyed] of [
      ["by default: no Idempotency-Key, so no preflight the API may refuse", crossPage(), false],
      ["data-idempotency=cross-origin: the key, and the preflight that allows it", crossPage("&idempotency=cross-origin"), true],
    ]) {
      test(name, async () => {
        const { page, context } = await open(query);
        const { status, network } = await page.evaluate(async (url) => {
          const res = await gatewayCircuit.fetch(url, { method: "POST", headers: { "content-type": "text/plain" }, body: "tea" });
          return { status: res.status, network: gatewayCircuit.metrics().network };
        }, `${api.url}/api/orders`);
        assert.equal(status, 201);
        assert.equal(network, 1, "in scope: the module sent it");
        const preflights = api.log.filter((e) => e.method === "OPTIONS");
        const posts = api.log.filter((e) => e.method === "POST");
        assert.equal(posts.length, 1);
        assert.equal(Boolean(posts[0].key), keyed, `key ${posts[0].key}`);
        assert.equal(preflights.length, keyed ? 1 : 0, JSON.stringify(preflights));
        if (keyed) assert.match(preflights[0].asked, /idempotency-key/);
        assert.deepEqual(await page.problems(), []);
        await context.close();
      });
    }
  });

  describe("small ones", () => {
    test("the TanStack retry helper never retries a GatewayIdempotencyError", async () => {
      const { page, context } = await open("scope=/api/");
      const r = await page.evaluate(async () => {
        const e = await gatewayCircuit
          .fetch("/api/orders", { method: "POST", headers: { "idempotency-key": "bad\u0001key" }, body: "{}" })
          .then(() => null, (e) => e);
        return { idem: gatewayCircuit.isIdempotencyError(e), retry: gatewayCircuit.retry(0, e), plain: gatewayCircuit.retry(0, new Error("x")) };
      });
      assert.deepEqual(r, { idem: true, retry: false, plain: true });
      assert.equal(api.count(), 0, "refused before the network");
      await context.close();
    });

    test("a second script tag with other settings warns once; warnings never print a query string", async () => {
      const { page, context } = await open("scope=/api/&second=data-ttl-ms%3D5000&wasm=%2Fmissing.wasm%3Ftoken%3DSECRET-9", { warnings: true });
      const warnings = await page.evaluate(() => window.__warnings);
      assert.equal(warnings.filter((w) => /second script tag/.test(w)).length, 1, warnings.join(" | "));
      assert.doesNotMatch(warnings.join("\n"), /SECRET-9|token=/);
      await context.close();
    });

    test("arm(502, 0) is a RangeError; arm(502) uses the TTL", async () => {
      const { page, context } = await open("scope=/api/");
      const r = await page.evaluate(() => {
        let zero;
        try {
          gatewayCircuit.arm(502, 0);
        } catch (e) {
          zero = e.name;
        }
        return { zero, armed: gatewayCircuit.read(), ttl: gatewayCircuit.arm(502).until - Date.now() };
      });
      assert.equal(r.zero, "RangeError");
      assert.equal(r.armed, null, "nothing was armed by the bad call");
      // until is on the monotonic clock, Date.now() on the wall clock: they may differ by a few ms.
      // The default first open period, 5 s.
      assert.ok(r.ttl > 4_000 && r.ttl <= 5_050, `${r.ttl}`);
      await context.close();
    });
  });
});
