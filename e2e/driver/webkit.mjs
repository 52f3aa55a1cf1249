// WebKitGTK's MiniBrowser through selenium-webdriver and WebKitWebDriver
// (classic WebDriver; no BiDi, so no console events and no script before a
// page's own: inject.mjs covers both). It needs a display: run under
// `xvfb-run -a`. One WebKitWebDriver serves one session, so a context is its
// own driver process and browser (a fresh, ephemeral profile).

import { spawn } from "node:child_process";
import { once } from "node:events";
import { writeFile } from "node:fs/promises";
import { Builder, By, Capabilities } from "selenium-webdriver";

const WEBDRIVER = process.env.WEBKIT_WEBDRIVER ?? "WebKitWebDriver";
const capabilities = () =>
  new Capabilities({ browserName: "MiniBrowser", "webkitgtk:browserOptions": { args: ["--automation"] } });

export async function launch() {
  if (!process.env.DISPLAY) throw new Error("WebKit (MiniBrowser) needs a display: run the tests under `xvfb-run -a`");
  const contexts = new Set();
  let version = null;
  // One more try when MiniBrowser did not start (the display, not the page): said on stderr.
  const start = () =>
    startSession().catch((e) => {
      console.error(`webkit: ${e.message}; starting another`);
      return startSession();
    });
  // A browser takes seconds to start, and suites open a context per test: the
  // next one starts while the current one is used (a fresh profile still).
  let spare = null;
  const take = () => {
    const next = spare ?? start();
    spare = start();
    spare.catch(() => {}); // its failure is seen by the one who takes it
    return next;
  };
  const newContext = async () => {
    const session = await take();
    version ??= (await session.driver.getCapabilities()).get("browserVersion");
    contexts.add(session);
    const pages = [];
    return {
      newPage: async () => {
        const handle = pages.length === 0 ? await session.driver.getWindowHandle() : await session.newTab();
        const page = wrap(session, handle, pages);
        pages.push(handle);
        return page;
      },
      close: async () => {
        contexts.delete(session);
        await session.quit();
      },
    };
  };
  // The version is the engine's, known once a browser runs: start one now.
  const first = await newContext();
  await first.close();
  return {
    version,
    newContext,
    close: async () => {
      const left = spare;
      spare = null;
      await Promise.all([...contexts].map((s) => s.quit()));
      await left?.then((s) => s.quit(), () => {});
    },
  };
}

async function freePort() {
  const { createServer } = await import("node:net");
  const srv = createServer().listen(0, "127.0.0.1");
  await once(srv, "listening");
  const { port } = srv.address();
  srv.close();
  return port;
}

/** A WebKitWebDriver process and its one session; commands run one at a time, in the right window. */
async function startSession() {
  const port = await freePort();
  const proc = spawn(WEBDRIVER, [`--port=${port}`, "--host=127.0.0.1"], { stdio: ["ignore", "ignore", "inherit"] });
  const exited = once(proc, "exit").then(([code]) => {
    throw new Error(`${WEBDRIVER} exited with ${code}`);
  });
  exited.catch(() => {});
  const server = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const up = await Promise.race([fetch(`${server}/status`).then((r) => r.ok, () => false), exited]);
    if (up) break;
    if (i === 100) throw new Error(`${WEBDRIVER} did not answer on ${server}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  // WebKitWebDriver waits for ever for a MiniBrowser that could not start
  // (seen here: "cannot open display" under xvfb-run): a session that does
  // not come in 60 s is an error, not a hang.
  const session = new Builder().usingServer(server).withCapabilities(capabilities()).build();
  session.then(undefined, () => {});
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`MiniBrowser did not start within 60 s (${WEBDRIVER} on ${server})`)), 60_000);
  });
  const driver = await Promise.race([session, late, exited]).finally(() => clearTimeout(timer)).catch((e) => {
    proc.kill();
    throw e;
  });
  await driver.manage().setTimeouts({ script: 120_000, pageLoad: 30_000 });
  let current = await driver.getWindowHandle();
  let queue = Promise.resolve();
  const run = (handle, op) => {
    const next = queue.then(async () => {
      if (handle !== current) {
        await driver.switchTo().window(handle);
        current = handle;
      }
      return op();
    });
    queue = next.catch(() => {});
    return next;
  };
  return {
    driver,
    run,
    newTab: () =>
      run(current, async () => {
        await driver.switchTo().newWindow("tab");
        current = await driver.getWindowHandle();
        return current;
      }),
    closeWindow: (handle) =>
      run(handle, async () => {
        await driver.close();
        current = null;
      }),
    quit: async () => {
      await queue;
      await driver.quit().catch(() => {});
      proc.kill("SIGTERM");
      await exited.catch(() => {});
    },
  };
}

/**
 * Runs fn(...args) in the page, awaiting a returned Promise, and reports its
 * value or its error. The source is part of the script WebDriver runs, which a
 * page's CSP does not restrict (an eval inside it would be).
 */
const evaluateScript = (source) => `const done = arguments[arguments.length - 1];
const args = Array.prototype.slice.call(arguments, 0, -1);
Promise.resolve().then(() => (${source}).apply(null, args)).then(
  (v) => done({ value: v === undefined ? null : v }),
  (e) => done({ error: e && e.stack ? String(e) + "\\n" + e.stack : String(e) }),
);`;

function wrap(session, handle, pages) {
  const { driver, run } = session;
  const evaluate = async (fn, arg) => {
    const args = arg === undefined ? [] : [arg];
    const r = await run(handle, () => driver.executeAsyncScript(evaluateScript(String(fn)), ...args));
    if (r && "error" in r) throw new Error(`evaluate in WebKit: ${r.error}`);
    return r?.value ?? null;
  };
  return {
    goto: (url) => run(handle, () => driver.get(url)),
    reload: () => run(handle, () => driver.navigate().refresh()),
    evaluate,
    waitForFunction: async (fn, arg, timeout) => {
      const end = Date.now() + timeout;
      for (;;) {
        if (await evaluate(`(...a) => !!(${fn})(...a)`, arg)) return;
        if (Date.now() > end) throw new Error(`waitForFunction: ${timeout} ms exceeded waiting for ${fn}`);
        await new Promise((r) => setTimeout(r, 30));
      }
    },
    click: (selector) => run(handle, async () => (await driver.findElement(By.css(selector))).click()),
    screenshot: async (path) => writeFile(path, Buffer.from(await run(handle, () => driver.takeScreenshot()), "base64")),
    close: async () => {
      pages.splice(pages.indexOf(handle), 1);
      // Closing a session's last window ends the session: the context's close() does that.
      if (pages.length === 0) return run(handle, () => driver.get("about:blank"));
      await session.closeWindow(handle);
    },
  };
}
