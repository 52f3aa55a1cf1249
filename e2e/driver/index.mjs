/**
 * The page API the portable e2e suites are written against: one small surface
 * over Chromium (playwright-core), Firefox (puppeteer-core, WebDriver BiDi) and
 * WebKit (selenium-webdriver, WebKitWebDriver), so a suite is written once and
 * runs in each. E2E_ENGINE picks the engine for the whole process: chromium
 * (the default), firefox, or webkit (which needs a display: `xvfb-run -a`).
 *
 *   import { engine, launch } from "./driver/index.mjs";
 *   const browser = await launch();              // browser.engine, browser.version
 *   const context = await browser.newContext();  // isolated: its own cookies, storage and HTTP cache
 *   const page = await context.newPage();        // a new tab: empty sessionStorage
 *   await page.goto(url);                        // resolves after the load event
 *   await page.reload();                         // same tab: sessionStorage survives
 *   await page.evaluate(fn, arg);                // fn(arg) in the page, a returned Promise awaited
 *   await page.waitForFunction(fn, arg, { timeout }); // until fn(arg) is truthy (default 30 s)
 *   await page.close(); await context.close(); await browser.close();
 *
 * fn travels as source text: it sees its one argument and the page's globals,
 * never the test's variables. Arguments and results must be JSON-like (no
 * DOM nodes, no functions; undefined may come back as null).
 *
 * Also on every page: click(selector) (a real click through the driver; in
 * Firefox the element's own click(), see firefox.mjs),
 * dispatchEvent(selector, type), textContent(selector), isVisible(selector),
 * screenshot(path); in Chromium, throttle({latency, downloadThroughput,
 * uploadThroughput}) (DevTools' network throttling, for every later load of
 * the tab). For pages served through injectingProxy (inject.mjs),
 * which is how WebKit gets them at all:
 *
 *   await context.addInitScript(fn, arg)  // runs before the page's own scripts on every load in the context
 *   await page.problems()                 // uncaught errors, unhandled rejections and console.error calls
 *                                         // in this tab so far (across reloads); throws without the hook
 *
 * Browser-made messages (a failed resource load, a CSP report) are not
 * problems: they differ between engines and only Chromium exposes them all.
 */

import { randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { bindPath, forgetInitScripts, registerInitScripts } from "./inject.mjs";

export { injectingProxy } from "./inject.mjs";

export const ENGINES = ["chromium", "firefox", "webkit"];

/** The engine of this process (E2E_ENGINE, default chromium). */
export const engine = process.env.E2E_ENGINE || "chromium";

/** Launches this process's engine (see the top of this file). */
export async function launch() {
  if (!ENGINES.includes(engine)) throw new Error(`E2E_ENGINE=${engine}: expected one of ${ENGINES.join(", ")}`);
  const impl = await import(`./${engine}.mjs`);
  const browser = await impl.launch();
  return {
    engine,
    version: browser.version,
    newContext: async () => context(await browser.newContext()),
    close: () => browser.close(),
  };
}

function context(raw) {
  const token = randomUUID();
  const sources = [];
  const bound = new Set(); // origins whose cookie names this context
  return {
    addInitScript: async (fn, arg) => {
      sources.push(`(${fn})(${arg === undefined ? "" : JSON.stringify(arg)});`);
      registerInitScripts(token, sources);
    },
    newPage: async () => page(await raw.newPage(), async (url) => {
      const { origin } = new URL(url);
      if (sources.length === 0 || bound.has(origin)) return null;
      bound.add(origin);
      return origin + bindPath(token);
    }),
    close: async () => {
      forgetInitScripts(token);
      await raw.close();
    },
  };
}

const DEFAULT_TIMEOUT = 30_000;

/** bindingFor(url) names the page that ties the context to its init scripts before url's origin is first visited, if needed. */
function page(raw, bindingFor) {
  const seen = [];
  // Problems so far in the current document, kept before it goes away.
  const drain = async () => {
    const got = await raw.evaluate(() => (window.__e2eProblems ? window.__e2eProblems.splice(0) : null)).catch(() => null);
    if (got) seen.push(...got);
    return got !== null;
  };
  const element = (selector, what) =>
    raw.evaluate(
      ([selector, what]) => {
        const el = document.querySelector(selector);
        if (!el) throw new Error(`no element matches ${selector}`);
        if (what === "text") return el.textContent;
        if (what === "visible") return el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
        el.dispatchEvent(new MouseEvent(what, { bubbles: true, cancelable: true, composed: true }));
        return null;
      },
      [selector, what],
    );
  return {
    goto: async (url) => {
      await drain();
      const binding = await bindingFor(url);
      if (binding) {
        await raw.goto(binding);
        if ((await raw.evaluate(() => document.title)) !== "e2e") {
          throw new Error(`addInitScript: ${new URL(url).origin} is not served through injectingProxy`);
        }
      }
      await raw.goto(url);
    },
    reload: async () => {
      await drain();
      await raw.reload();
    },
    evaluate: (fn, arg) => raw.evaluate(fn, arg),
    throttle: (conditions) => {
      if (!raw.throttle) throw new Error(`page.throttle(): network throttling needs Chromium (CDP), not ${engine}`);
      return raw.throttle(conditions);
    },
    waitForFunction: (fn, arg, { timeout = DEFAULT_TIMEOUT } = {}) => raw.waitForFunction(fn, arg, timeout).then(() => {}),
    click: (selector) => raw.click(selector),
    dispatchEvent: (selector, type) => element(selector, type).then(() => {}),
    textContent: (selector) => element(selector, "text"),
    isVisible: (selector) => element(selector, "visible"),
    screenshot: async (path) => {
      await mkdir(dirname(path), { recursive: true });
      await raw.screenshot(path);
    },
    problems: async () => {
      if (!(await drain())) throw new Error("page.problems(): this page has no error hook (serve it through injectingProxy)");
      return [...seen];
    },
    close: async () => {
      await drain();
      await raw.close();
    },
  };
}
