// make bench: size, start-up and per-request cost of the module, side by side
// with what it is measured against, in one run on this machine (ratios and
// medians from the same run; single absolute times mean little here).
//
// Prints one table and writes it as JSON to build/bench/results.json.

import { readFileSync, writeFileSync } from "node:fs";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS, startGateway } from "../e2e/harness.mjs";
import { sizes } from "../tools/sizes.mjs";

const root = new URL("..", import.meta.url).pathname;
const LOADS = Number(process.env.BENCH_LOADS ?? 12);
const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const MEMORY_CALLS = Number(process.env.BENCH_MEMORY_CALLS ?? 100_000);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// Fill the hashed names into the bench pages (build/bench/*.html).
const dist = JSON.parse(readFileSync(`${root}dist/manifest.json`, "utf8"));
const bench = JSON.parse(readFileSync(`${root}build/bench/manifest.json`, "utf8"));
for (const page of ["ready-module", "ready-floor", "before-ready", "calls"]) {
  const html = readFileSync(`${root}bench/web/${page}.html`, "utf8")
    .replaceAll("__MODULE_JS__", dist["gateway-circuit.js"])
    .replaceAll("__MODULE_WASM__", dist["gateway-circuit.wasm"])
    .replaceAll("__FLOOR_WASM__", bench["floor.wasm"])
    .replaceAll("__WASM_EXEC__", bench["wasm_exec.js"]);
  writeFileSync(`${root}build/bench/${page}.html`, html);
}

const gw = await startGateway();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: [...CHROMIUM_ARGS, "--js-flags=--expose-gc", "--enable-precise-memory-info"],
});
const results = { date: new Date().toISOString(), machine: `${process.platform} ${process.arch}, node ${process.version}`, chromium: browser.version() };
try {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on("pageerror", (e) => console.error("pageerror:", e.message));

  results.size = {
    moduleWasm: sizes(`${root}dist/gateway-circuit.wasm`),
    moduleJs: sizes(`${root}dist/gateway-circuit.js`),
    moduleEngineJs: sizes(`${root}dist/gateway-circuit-engine.js`),
    referenceJs: sizes(`${root}bench/web/reference.js`),
    floorWasm: sizes(`${root}build/bench/floor.wasm`),
    floorJs: sizes(`${root}build/bench/wasm_exec.js`),
  };

  // Ready: script start → ready, warm HTTP cache, loads alternated.
  const ready = { module: [], floor: [] };
  for (let i = 0; i <= LOADS; i++) {
    for (const which of i % 2 ? ["floor", "module"] : ["module", "floor"]) {
      await page.goto(`${gw.url}/bench/ready-${which}.html`);
      const ms = await page.waitForFunction(() => window.__ready, null, { timeout: 10_000 }).then((h) => h.jsonValue());
      if (i > 0) ready[which].push(ms); // the first round warms the cache
    }
  }
  results.ready = { module: median(ready.module), floor: median(ready.floor), loads: LOADS };

  // Requests issued before the wasm is ready.
  const pairs = [];
  for (let i = 0; i < 4; i++) {
    await page.goto(`${gw.url}/bench/before-ready.html?first=${i % 2 ? "native" : "module"}`);
    pairs.push(...(await page.waitForFunction(() => window.__pairs, null, { timeout: 10_000 }).then((h) => h.jsonValue())));
  }
  results.beforeReady = {
    module: median(pairs.map((p) => p[0])),
    native: median(pairs.map((p) => p[1])),
    pairs: pairs.length,
  };

  await page.goto(`${gw.url}/bench/calls.html`);
  await page.evaluate(() => gatewayCircuit.ready);
  await page.evaluate(() => window.closedPath(100)); // warm-up
  results.closed = await page.evaluate((n) => window.closedPath(n), CALLS);
  await page.evaluate(() => window.openPath(1000)); // warm-up
  results.open = await page.evaluate((n) => window.openPath(n), CALLS * 5);
  results.memory = await page.evaluate(([o, c]) => window.memory(o, c), [MEMORY_CALLS, 2000]);
  results.serverRequests = await gw.count("/api/");
} finally {
  await browser.close();
  await gw.stop();
}

// The table.
const r = results;
const ratio = (a, b) => a / b;
const rows = [
  ["wasm brotli, module / floor", `${r.size.moduleWasm.brotli} / ${r.size.floorWasm.brotli} B`, ratio(r.size.moduleWasm.brotli, r.size.floorWasm.brotli), 1.3],
  ["ready, module / floor (median)", `${r.ready.module.toFixed(1)} / ${r.ready.floor.toFixed(1)} ms`, ratio(r.ready.module, r.ready.floor), 1.25],
  ["closed path, module / native fetch", `${(r.closed.module * 1000).toFixed(0)} / ${(r.closed.native * 1000).toFixed(0)} µs`, ratio(r.closed.module, r.closed.native), 1.02],
  ["open path, module / plain-JS reference", `${(r.open.module * 1000).toFixed(2)} / ${(r.open.reference * 1000).toFixed(2)} µs`, ratio(r.open.module, r.open.reference), 2.0],
];
// cockatiel, the best-known JS peer, in the same run: its closed-path ratio is
// the yardstick for the module's (target: module ≤ cockatiel + 0.005).
const closedVsCockatiel = ratio(r.closed.module, r.closed.native) - ratio(r.closed.cockatiel, r.closed.native);
const added = r.beforeReady.module - r.beforeReady.native;
const wasmGrowth = r.memory.after.wasm - r.memory.before.wasm;
const heapGrowth = r.memory.after.heap - r.memory.before.heap;
const pad = (s, n) => String(s).padEnd(n);
const out = [];
out.push(`gatewaycircuit bench — ${r.date} — ${r.chromium} — ${r.machine}`);
out.push("");
out.push(`| ${pad("figure", 40)} | ${pad("values", 28)} | ${pad("ratio", 6)} | target | ok |`);
out.push(`|${"-".repeat(42)}|${"-".repeat(30)}|${"-".repeat(8)}|--------|----|`);
for (const [name, values, x, target] of rows) {
  out.push(`| ${pad(name, 40)} | ${pad(values, 28)} | ${pad(x.toFixed(3), 6)} | ≤ ${pad(target, 4)} | ${x <= target ? "✓" : "✗"}  |`);
}
out.push(`| ${pad("closed path, cockatiel / native fetch", 40)} | ${pad(`${(r.closed.cockatiel * 1000).toFixed(0)} / ${(r.closed.native * 1000).toFixed(0)} µs`, 28)} | ${pad(ratio(r.closed.cockatiel, r.closed.native).toFixed(3), 6)} | —      |    |`);
out.push(`| ${pad("closed path ratio, module − cockatiel", 40)} | ${pad(`${ratio(r.closed.module, r.closed.native).toFixed(3)} − ${ratio(r.closed.cockatiel, r.closed.native).toFixed(3)}`, 28)} | ${pad(`${closedVsCockatiel >= 0 ? "+" : ""}${closedVsCockatiel.toFixed(3)}`, 6)} | ≤ 0.005 | ${closedVsCockatiel <= 0.005 ? "✓" : "✗"}  |`);
out.push(`| ${pad("open path, cockatiel (rejects)", 40)} | ${pad(`${(r.open.cockatiel * 1000).toFixed(2)} µs`, 28)} | ${pad(ratio(r.open.cockatiel, r.open.reference).toFixed(3), 6)} | —      |    |`);
out.push(`| ${pad("before ready, added median latency", 40)} | ${pad(`${r.beforeReady.module.toFixed(3)} vs ${r.beforeReady.native.toFixed(3)} ms`, 28)} | ${pad(`${added >= 0 ? "+" : ""}${added.toFixed(3)}`, 6)} | ≤ 1 ms | ${added <= 1 ? "✓" : "✗"}  |`);
out.push(`| ${pad(`wasm memory growth, ${r.memory.calls} calls`, 40)} | ${pad(`${r.memory.before.wasm} → ${r.memory.after.wasm} B`, 28)} | ${pad((wasmGrowth / 2 ** 20).toFixed(2), 6)} | ≤ 8 MiB | ${wasmGrowth <= 8 * 2 ** 20 ? "✓" : "✗"}  |`);
out.push(`| ${pad(`JS heap after GC, ${r.memory.calls} calls`, 40)} | ${pad(`${r.memory.before.heap} → ${r.memory.after.heap} B`, 28)} | ${pad((heapGrowth / 2 ** 20).toFixed(2), 6)} | ≤ 2 MiB | ${heapGrowth <= 2 * 2 ** 20 ? "✓" : "✗"}  |`);
out.push("");
out.push(`| ${pad("size", 26)} | ${pad("raw", 10)} | ${pad("gzip -9", 10)} | ${pad("brotli -11", 10)} |`);
out.push(`|${"-".repeat(28)}|${"-".repeat(12)}|${"-".repeat(12)}|${"-".repeat(12)}|`);
for (const [name, s] of [
  ["module wasm", r.size.moduleWasm],
  ["module js: the tag's file (blocks)", r.size.moduleJs],
  ["module js: engine's file (async, incl. wasm_exec)", r.size.moduleEngineJs],
  ["seed-design breaker js (blocks)", r.size.referenceJs],
  ["floor wasm", r.size.floorWasm],
  ["floor js (wasm_exec.js)", r.size.floorJs],
]) {
  out.push(`| ${pad(name, 26)} | ${pad(s.raw, 10)} | ${pad(s.gzip, 10)} | ${pad(s.brotli, 10)} |`);
}
out.push(`the tag's file / the seed-design breaker, brotli: ${(r.size.moduleJs.brotli / r.size.referenceJs.brotli).toFixed(2)}× (what blocks rendering; the engine's file loads after the page)`);
out.push("");
out.push(`samples: ${r.ready.loads} loads each for ready; ${r.beforeReady.pairs} before-ready pairs; ${r.closed.n} closed-path calls each; ${r.open.n} open-path calls each`);
console.log(out.join("\n"));
writeFileSync(`${root}build/bench/results.json`, `${JSON.stringify(results, null, 2)}\n`);
console.log("\nwritten: build/bench/results.json");
