// The driver's own promises, checked in each engine (E2E_ENGINE): what the
// portable suites rely on must hold the same way in all three, and a check
// that cannot see a problem must say so instead of passing.

import assert from "node:assert/strict";
import { createServer } from "node:http";
import { once } from "node:events";
import { after, before, describe, test } from "node:test";
import { engine, injectingProxy, launch } from "./index.mjs";

// A page that records the order its scripts ran in; ?fail=1 makes it fail three ways.
const PAGE = `<!doctype html><html><head><title>driver</title>
<script>window.order = (window.order || []).concat("page");
if (location.search.includes("fail")) {
  console.error("logged", 42);
  Promise.reject(new TypeError("nobody caught this"));
  setTimeout(() => { throw new RangeError("thrown late"); });
}</script></head><body><p id="text">hello</p><button id="hidden" hidden>x</button></body></html>`;

let upstream, proxy, browser;
before(async () => {
  upstream = createServer((req, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE));
  upstream.listen(0, "127.0.0.1");
  await once(upstream, "listening");
  const direct = `http://127.0.0.1:${upstream.address().port}`;
  proxy = { ...(await injectingProxy(direct)), direct };
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await proxy?.stop();
  upstream?.close();
});

describe(`the e2e driver in ${engine}`, () => {
  test("init scripts run before the page's own, on every load, with their argument", async () => {
    const context = await browser.newContext();
    await context.addInitScript((first) => (window.order = [first]), "init");
    const page = await context.newPage();
    await page.goto(`${proxy.url}/`);
    assert.deepEqual(await page.evaluate(() => window.order), ["init", "page"]);
    await page.reload();
    assert.deepEqual(await page.evaluate(() => window.order), ["init", "page"]);
    assert.deepEqual(await page.problems(), []);
    await context.close();
  });

  test("problems: a console.error, an unhandled rejection and an uncaught error, kept across a reload", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${proxy.url}/?fail=1`);
    await page.waitForFunction(() => window.__e2eProblems.length >= 3, null, { timeout: 5_000 });
    await page.reload();
    await page.waitForFunction(() => window.__e2eProblems.length >= 3, null, { timeout: 5_000 });
    const problems = await page.problems();
    assert.equal(problems.length, 6, problems.join("\n"));
    for (const want of [/^console\.error: logged 42$/, /^pageerror: TypeError: nobody caught this$/, /^pageerror: .*thrown late/]) {
      assert.equal(problems.filter((p) => want.test(p)).length, 2, `${want} twice in ${problems.join(" | ")}`);
    }
    await context.close();
  });

  test("problems() fails on a page without the hook", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${proxy.direct}/`);
    await assert.rejects(page.problems(), /no error hook/);
    await context.close();
  });

  test("sessionStorage: kept by a reload, empty in a new tab and in a new context", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${proxy.url}/`);
    await page.evaluate(() => sessionStorage.setItem("k", "v"));
    await page.reload();
    assert.equal(await page.evaluate(() => sessionStorage.getItem("k")), "v");
    const tab = await context.newPage();
    await tab.goto(`${proxy.url}/`);
    assert.equal(await tab.evaluate(() => sessionStorage.getItem("k")), null);
    const other = await (await browser.newContext()).newPage();
    await other.goto(`${proxy.url}/`);
    assert.equal(await other.evaluate(() => sessionStorage.getItem("k")), null);
    assert.equal(await page.evaluate(() => sessionStorage.getItem("k")), "v", "the first tab kept its own");
    await tab.close();
    await context.close();
  });

  test("evaluate awaits, passes one JSON argument and rejects with the page's error", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${proxy.url}/`);
    assert.deepEqual(await page.evaluate(async ([a, b]) => ({ sum: a + b.n }), [1, { n: 2 }]), { sum: 3 });
    await assert.rejects(page.evaluate(() => Promise.reject(new Error("from the page"))), /from the page/);
    await assert.rejects(page.waitForFunction(() => false, null, { timeout: 300 }));
    assert.equal(await page.textContent("#text"), "hello");
    assert.equal(await page.isVisible("#text"), true);
    assert.equal(await page.isVisible("#hidden"), false);
    await context.close();
  });
});
