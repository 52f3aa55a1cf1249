// Exactly-once mutations, end to end: the module's idempotency keys in each
// engine (driver/, E2E_ENGINE) against the demo gateway, whose orders table (SQLite) is
// counted with a query after each scenario.

import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";
import { engine } from "./driver/index.mjs";
import { gatewayAndBrowser, openDemo, sleep } from "./harness.mjs";

const env = gatewayAndBrowser();

const ordersAdmin = async (path, body) => {
  const res = await fetch(`${env.gw.url}${path}`, { method: "POST", body: body && JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
};

beforeEach(async () => {
  await ordersAdmin("/__admin/orders/reset");
  await ordersAdmin("/__admin/orders/delay", { delayMs: 0 });
});

/**
 * In the page, before its own scripts: window.__e2eLayout records each move
 * of the demo's buttons once the page can be clicked (from DOMContentLoaded,
 * in document coordinates: a scroll is no move), with the DOM change that
 * moved it, and where each click landed. A driver's click aims at where the
 * button was; one that moved in between is a click on something else.
 */
function watchLayout() {
  const seen = { moves: [], clicks: [] };
  Object.defineProperty(window, "__e2eLayout", { value: seen });
  const at = () => Math.round(performance.now());
  const name = (n) => (n.id ? `#${n.id}` : n.nodeName.toLowerCase());
  const where = (b) => {
    const r = b.getBoundingClientRect();
    return `${Math.round(r.left + scrollX)},${Math.round(r.top + scrollY)} ${Math.round(r.width)}x${Math.round(r.height)}`;
  };
  addEventListener("DOMContentLoaded", () => {
    const last = new Map(["refetch", "outside", "save"].map((id) => document.getElementById(id)).map((b) => [b, where(b)]));
    new MutationObserver((changes) => {
      for (const [b, was] of last) {
        const now = where(b);
        if (now === was) continue;
        seen.moves.push(`${at()} ms: #${b.id} moved from ${was} to ${now} when ${name(changes[0].target)} changed`);
        last.set(b, now);
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  addEventListener("click", (e) => seen.clicks.push(`${at()} ms: a click on ${name(e.target)} at ${e.clientX},${e.clientY}`), true);
}

const open = (query) => openDemo(env, query, watchLayout);

/** Until n idempotency keys are claimed at the gateway: the requests reached it. */
async function reached(n, timeout = 10_000) {
  for (const end = Date.now() + timeout; (await env.gw.orders()).keys < n; await sleep(20)) {
    if (Date.now() > end) throw new Error(`no ${n} request(s) reached the gateway in ${timeout} ms`);
  }
}

/** The page's first n saves' outcomes, once it has them; else an error that says what the page and the gateway saw. */
const saves = (page, n) =>
  page
    .waitForFunction((n) => JSON.parse(document.body.dataset.saves ?? "[]").length >= n, n, { timeout: 15_000 })
    .catch(async (e) => {
      const page_ = await page
        .evaluate(() => ({
          saves: document.body.dataset.saves ?? "[]",
          module: document.body.dataset.module,
          ...window.__e2eLayout,
          metrics: gatewayCircuit.metrics(),
          diagnostics: gatewayCircuit.diagnostics(),
        }))
        .catch((err) => `unreadable: ${err.message}`);
      const gateway = await env.gw.orders().catch((err) => `unreadable: ${err.message}`);
      throw new Error(`${n} save(s) not recorded; the page saw ${JSON.stringify(page_)}, the gateway's orders and keys ${JSON.stringify(gateway)} (${e.message})`);
    })
    .then(() => page.evaluate(() => JSON.parse(document.body.dataset.saves)));

describe(`exactly-once mutations in ${engine}`, () => {
  // The cases click as soon as the module is ready: a button that moves then
  // (a line filled in above it) takes a driver's click, or a person's, elsewhere.
  test("the demo's buttons stay where they are once the page can be clicked", async () => {
    const { page, context } = await open();
    await page.waitForFunction(() => document.getElementById("metrics").textContent !== "" && document.getElementById("storm").dataset.samples >= 1);
    await page.click("#save");
    await saves(page, 1);
    const { moves, clicks } = await page.evaluate(() => window.__e2eLayout);
    assert.deepEqual(moves, []);
    assert.equal(clicks.length, 1);
    assert.match(clicks[0], /a click on #save /);
    await context.close();
  });

  test("a double click (two clicks 30 ms apart) makes one row", async () => {
    await ordersAdmin("/__admin/orders/delay", { delayMs: 300 });
    const { page, context } = await open();
    await page.evaluate(() => {
      const b = document.getElementById("save");
      b.click();
      setTimeout(() => b.click(), 30);
    });
    const got = await saves(page, 2);
    assert.deepEqual(got, ["201", "201"], "both clicks see the one result");
    assert.equal((await env.gw.orders()).orders, 1);
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  test("a second click after the first was answered is a new action, with a new key", async () => {
    // A 2xx ends the action: toggling on, off and on again must not replay
    // the first answer. Only a retry of an action without a definitive
    // answer (no answer, a timeout, a 5xx, a 409) reuses its key.
    const { page, context } = await open();
    await page.click("#save");
    await saves(page, 1);
    await page.click("#save");
    const got = await saves(page, 2);
    assert.deepEqual(got, ["201", "201"]);
    assert.equal((await env.gw.orders()).orders, 2);
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  // WebKit's own fetch rejects an aborted request with AbortError, not the
  // signal's reason; the module rejects with the reason in every engine.
  test("a retry after a client timeout, while the server is slow, makes one row", async () => {
    await ordersAdmin("/__admin/orders/delay", { delayMs: 1500 });
    const { page, context } = await open("queries=0&saveTimeout=400");
    await page.click("#save");
    assert.deepEqual(await saves(page, 1), ["TimeoutError"]);
    await sleep(1600); // the server finishes the first attempt
    await ordersAdmin("/__admin/orders/delay", { delayMs: 0 });
    // The retry waits as long as it needs: on a loaded machine even a quick answer can take 400 ms.
    await page.evaluate(() => (document.body.dataset.saveTimeout = "0"));
    await page.click("#save");
    const got = await saves(page, 2);
    assert.deepEqual(got, ["TimeoutError", "201 replayed"], "the retry kept the key: the server replayed");
    assert.equal((await env.gw.orders()).orders, 1);
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  test("a reload mid-request, then a retry, makes one row", async () => {
    await ordersAdmin("/__admin/orders/delay", { delayMs: 1500 });
    const { page, context } = await open();
    await page.click("#save");
    await reached(1); // not a fixed wait: a reload before the request left would cancel it
    await page.reload(); // the answer is lost with the page; the key is in sessionStorage
    await page.waitForFunction(() => document.body.dataset.module === "ready");
    await sleep(1600);
    await ordersAdmin("/__admin/orders/delay", { delayMs: 0 });
    await page.click("#save");
    const got = await saves(page, 1);
    assert.deepEqual(got, ["201 replayed"], "after F5 it is still the same action");
    assert.equal((await env.gw.orders()).orders, 1);
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  test("the same key with another body is refused locally (422), without a request", async () => {
    const { page, context } = await open();
    const r = await page.evaluate(async () => {
      const post = (item) =>
        gatewayCircuit.fetch("/api/orders", {
          method: "POST",
          headers: { "content-type": "application/json", "x-demo-user": "demo", "idempotency-key": '"order-7"' },
          body: JSON.stringify({ item, qty: 1 }),
        });
      const first = await post("tea");
      const second = await post("coffee");
      return [first.status, second.status, second.headers.get("x-gateway-circuit"), (await second.json()).error];
    });
    assert.deepEqual(r, [201, 422, "idempotency", "idempotency_key_reused"]);
    assert.deepEqual(await env.gw.orders(), { orders: 1, keys: 1 }, "the refused one never reached the gateway");
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });
});
