// Shared set-up for the end-to-end tests: a real demo gateway (Go) on
// 127.0.0.1 and a real browser. The gateway's request counts are the ground
// truth; nothing in the browser is mocked. The portable suites drive the
// engine E2E_ENGINE names through driver/ (gatewayAndBrowser, openDemo); the
// Chromium-only ones (faults, Next.js, soak, bench) use playwright-core
// directly (launchBrowser, watchedPage).

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { after, before } from "node:test";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS } from "./driver/chromium.mjs";
import { injectingProxy, launch } from "./driver/index.mjs";

const root = new URL("..", import.meta.url).pathname;

export { CHROMIUM_ARGS };

/** Starts build/gateway on a free loopback port. */
export async function startGateway() {
  // Each gateway gets its own orders database, so suites never share rows.
  const data = mkdtempSync(join(tmpdir(), "gatewaycircuit-"));
  const proc = spawn(`${root}build/gateway`, ["-addr", "127.0.0.1:0", "-root", root, "-data", data], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: proc.stdout });
  const [line] = await Promise.race([
    once(lines, "line"),
    once(proc, "exit").then(([code]) => {
      throw new Error(`gateway exited with ${code}`);
    }),
  ]);
  const url = line.replace(/^demo: /, "").replace(/\/$/, "");
  const admin = async (path, method = "GET") => {
    const res = await fetch(url + path, { method });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.status === 204 ? null : res.json();
  };
  return {
    url,
    /** e.g. setMode({status: 502}) or setMode({status: 200, delayMs: 500}) */
    setMode: (m) => admin(`/__admin/mode?${new URLSearchParams(m)}`, "POST"),
    /** Requests that reached the fake API, optionally under a path prefix. */
    count: async (prefix = "/") => (await admin(`/__admin/counts?prefix=${encodeURIComponent(prefix)}`)).total,
    reset: () => admin("/__admin/reset", "POST"),
    /** Rows in the orders table (a SQL count at the gateway) and recorded keys. */
    orders: () => admin("/__admin/orders"),
    stop: async () => {
      proc.kill("SIGTERM");
      await once(proc, "exit");
      rmSync(data, { recursive: true, force: true });
    },
  };
}

/**
 * One demo gateway and one browser of E2E_ENGINE's engine (driver/) for a
 * test file: started before its tests, stopped after them. The returned
 * object's gw and browser are set once the file's tests run. gw.url is the
 * injecting proxy in front of the gateway (driver/inject.mjs: the pages get
 * the error hook and init scripts); counts are read at the gateway itself.
 */
export function gatewayAndBrowser() {
  const env = { gw: null, browser: null };
  let gateway = null;
  let proxy = null;
  before(async () => {
    gateway = await startGateway();
    proxy = await injectingProxy(gateway.url);
    env.gw = { ...gateway, url: proxy.url };
    env.browser = await launch();
  });
  after(async () => {
    await env.browser?.close();
    await proxy?.stop();
    await gateway?.stop();
  });
  return env;
}

/** Playwright's Chromium, for the Chromium-only suites. */
export async function launchBrowser() {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });
}

/**
 * A page that records what must never happen: uncaught exceptions and
 * unhandled rejections (pageerror) and console errors.
 */
export async function watchedPage(context) {
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    // The browser itself logs every 4xx/5xx it receives; those are the test's own doing.
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) problems.push(`console.error: ${m.text()}`);
  });
  return { page, problems };
}

/** A fresh tab (its own context) on the demo page, once the module is ready; `init` runs first on every load. */
export async function openDemo(env, query = "queries=0", init = undefined) {
  const context = await env.browser.newContext();
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  await page.goto(`${env.gw.url}/?${query}`);
  await page.waitForFunction(() => document.body.dataset.module === "ready", null, { timeout: 10_000 });
  return { page, context };
}

/** Waits until the demo page's queries have all settled at least once. */
export async function settled(page, n) {
  await page.waitForFunction((n) => Number(document.body.dataset.settled ?? 0) >= n, n, { timeout: 15_000 });
}

/** Waits until a Next.js test app shows n [data-testid="query"] rows, none of them pending. */
export function queriesSettled(page, n, timeout = 20_000) {
  return page.waitForFunction(
    (n) => {
      const rows = document.querySelectorAll('[data-testid="query"]');
      return rows.length === n && [...rows].every((r) => r.dataset.state !== "pending");
    },
    n,
    { timeout },
  );
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * How many open periods of a circuit armed `ms` ago have ended, the first
 * `ttlMs` long (the module's default, 5 s) and each next one twice as long
 * (the module's rule while its probe fails): the probes it may have sent.
 */
export function openPeriodsEnded(ms, ttlMs = 5_000) {
  let n = 0;
  for (let end = ttlMs, len = ttlMs; end <= ms; len *= 2, end += len) n++;
  return n;
}

/**
 * Resolves once every request the page has sent through gatewayCircuit.fetch
 * has reached the demo gateway, so that a count read next is complete (where
 * a test asserts that something did not reach it, this is what it waits for,
 * not a fixed time). First every call made so far is decided (metrics(): none
 * still waiting for the wasm or a probe), then the page sends a sentinel
 * through gatewayCircuit.fetch, to a path out of the demo's scope so the
 * circuit passes it on whatever its state, and the gateway is asked until it
 * has counted it. Fails, saying what the page saw, after timeoutMs.
 */
export async function sentinel(env, page, timeoutMs = 10_000) {
  const decided = () => {
    const m = gatewayCircuit.metrics();
    return m.calls === m.answeredLocally + m.passedThrough + m.network - m.retries;
  };
  await page.waitForFunction(decided, null, { timeout: timeoutMs }).catch(async (e) => {
    const m = await page.evaluate(() => gatewayCircuit.metrics());
    throw new Error(`calls still undecided after ${timeoutMs} ms: ${JSON.stringify(m)} (${e.message})`);
  });
  const path = `/outside/sentinel-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  await page.evaluate((path) => {
    window.__e2eSentinel = "pending";
    gatewayCircuit.fetch(path).then(
      (r) => (window.__e2eSentinel = `${r.status} ${r.headers.get("x-gateway-circuit") ?? ""}`),
      (e) => (window.__e2eSentinel = `rejected: ${e}`),
    );
  }, path);
  for (const end = Date.now() + timeoutMs; (await env.gw.count(path)) < 1; await sleep(20)) {
    if (Date.now() > end) {
      const got = await page.evaluate(() => window.__e2eSentinel).catch((e) => `unreadable: ${e.message}`);
      throw new Error(`the sentinel request ${path} did not reach the gateway within ${timeoutMs} ms (the page's fetch: ${got})`);
    }
  }
}

/**
 * The built module's file for a request path a test server serves at its
 * root: /gateway-circuit.js, /gateway-circuit.wasm and the engine's file the
 * script loads beside itself (/gateway-circuit-{facade,engine}.<hash>.js); null for
 * any other path.
 */
export function moduleFile(pathname) {
  const m = /^\/(gateway-circuit\.(js|wasm)|gateway-circuit-(?:facade|engine)\.[0-9a-f]{12}\.js)$/.exec(pathname);
  if (!m) return null;
  return { type: pathname.endsWith(".wasm") ? "application/wasm" : "text/javascript", body: readFileSync(`${root}dist/${m[1]}`) };
}

/** A free TCP port on 127.0.0.1 (for servers that cannot report one they picked). */
export async function freePort() {
  const { createServer } = await import("node:net");
  const srv = createServer();
  srv.listen(0, "127.0.0.1");
  await once(srv, "listening");
  const { port } = srv.address();
  srv.close();
  await once(srv, "close");
  return port;
}

/**
 * `next start` for an app already built with `next build` (see
 * demo/nextjs/nextjs.mk), or `next dev` (command "dev"), on a free loopback
 * port. `env` reaches the server (e.g. GATEWAY_URL); `next` is the app's own
 * Next when it has one (default: the demo workspace's).
 */
export async function startNext(appDir, env = {}, { command = "start", next = `${root}demo/nextjs/node_modules/next/dist/bin/next` } = {}) {
  const port = await freePort();
  const proc = spawn(process.execPath, [next, command, "-H", "127.0.0.1", "-p", String(port)], {
    cwd: appDir,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env },
    stdio: ["ignore", "pipe", "inherit"],
    detached: true, // its own process group: stop() ends any worker it starts, too
  });
  // Read every line (so its output never blocks it); "Ready in" means it listens.
  const ready = new Promise((resolve) =>
    createInterface({ input: proc.stdout }).on("line", (line) => /Ready in/.test(line) && resolve()),
  );
  await Promise.race([
    ready,
    once(proc, "exit").then(([code]) => {
      throw new Error(`next ${command} in ${appDir} exited with ${code}`);
    }),
  ]);
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      if (proc.exitCode !== null) return;
      process.kill(-proc.pid, "SIGTERM");
      await once(proc, "exit");
    },
  };
}
