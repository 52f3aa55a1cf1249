// The closed path alone, in rounds, to compare a change with what it
// replaces on this noisy machine (make bench's single round is too coarse
// for a few µs): each round loads bench/web/calls.html fresh and times
// native fetch, gatewayCircuit.fetch and cockatiel interleaved call by call
// (window.closedPath); the figure is the median over rounds of each round's
// ratio to native fetch. Each round also loads bench/web/overhead.html,
// where fetch answers from memory: what it times is each wrapper's own work
// per call in µs (a few µs hide in a network call's noise here).
//
//   make build build/bench/manifest.json build/bench/cockatiel.js
//   node bench/closed.mjs                       # dist/ alone
//   BENCH_BASE=/tmp/base node bench/closed.mjs  # dist/ against a copy of an older dist/ (its manifest.json and hashed files)
//
// BENCH_BASE may name several such copies, comma-separated (each row is named
// by its directory). The builds' rounds alternate (the order rotating), so
// all see the same machine. Knobs: BENCH_ROUNDS (default 12 per build),
// BENCH_CALLS (calls per variant per round, default 400).

import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS, startGateway } from "../e2e/harness.mjs";

const root = new URL("..", import.meta.url).pathname;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const CALLS = Number(process.env.BENCH_CALLS ?? 400);
const BASE = process.env.BENCH_BASE;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Writes build/bench/<name>.html and <name>-overhead.html: the pages loading the build whose files are at `prefix` (/ or /bench/). */
function page(name, manifest, prefix) {
  for (const [from, to] of [["calls", name], ["overhead", `${name}-overhead`]]) {
    const html = readFileSync(`${root}bench/web/${from}.html`, "utf8")
      .replaceAll("/__MODULE_JS__", prefix + manifest["gateway-circuit.js"])
      .replaceAll("/__MODULE_WASM__", prefix + manifest["gateway-circuit.wasm"]);
    writeFileSync(`${root}build/bench/${to}.html`, html);
  }
}

const builds = { new: "closed-new" };
page("closed-new", JSON.parse(readFileSync(`${root}dist/manifest.json`, "utf8")), "/");
// Other builds are served from build/bench/ (/bench/<file>, next to their pages).
for (const dir of BASE ? BASE.split(",") : []) {
  const name = dir.replace(/\/+$/, "").split("/").pop();
  const m = JSON.parse(readFileSync(`${dir}/manifest.json`, "utf8"));
  for (const f of Object.values(m)) copyFileSync(`${dir}/${f}`, `${root}build/bench/${f}`);
  page(`closed-${name}`, m, "/bench/");
  builds[name] = `closed-${name}`;
}

const gw = await startGateway();
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });
const ratios = Object.fromEntries(Object.keys(builds).map((b) => [b, { module: [], cockatiel: [], moduleUs: [], moduleSignalUs: [], cockatielUs: [] }]));
try {
  const p = await (await browser.newContext()).newPage();
  p.on("pageerror", (e) => console.error("pageerror:", e.message));
  const names = Object.keys(builds);
  for (let i = 0; i < ROUNDS; i++) {
    for (let k = 0; k < names.length; k++) {
      const b = names[(i + k) % names.length];
      await p.goto(`${gw.url}/bench/${builds[b]}.html`);
      await p.evaluate(() => gatewayCircuit.ready);
      await p.evaluate(() => window.closedPath(100)); // warm-up
      const r = await p.evaluate((n) => window.closedPath(n), CALLS);
      ratios[b].module.push(r.module / r.native);
      ratios[b].cockatiel.push(r.cockatiel / r.native);
      await p.goto(`${gw.url}/bench/${builds[b]}-overhead.html`);
      await p.evaluate(() => gatewayCircuit.ready);
      await p.evaluate(() => window.overhead(5)); // warm-up
      const o = await p.evaluate(() => window.overhead(30));
      ratios[b].moduleUs.push(o.module);
      ratios[b].moduleSignalUs.push(o.moduleSignal);
      ratios[b].cockatielUs.push(o.cockatiel);
      console.error(
        `round ${i + 1} ${b}: native ${(r.native * 1000).toFixed(0)} µs, module ${(r.module / r.native).toFixed(3)}, cockatiel ${(r.cockatiel / r.native).toFixed(3)}; own work ${o.module.toFixed(2)} (with a signal ${o.moduleSignal.toFixed(2)}) / ${o.cockatiel.toFixed(2)} µs`,
      );
    }
  }
} finally {
  await browser.close();
  await gw.stop();
}

console.log(`closed path, ${ROUNDS} rounds × ${CALLS} calls per variant, median of per-round ratios to native fetch`);
console.log("| build | module / native | cockatiel / native | module − cockatiel (median of rounds) |");
console.log("|---|---|---|---|");
for (const [b, r] of Object.entries(ratios)) {
  const diff = median(r.module.map((m, i) => m - r.cockatiel[i]));
  console.log(`| ${b} | ${median(r.module).toFixed(3)} | ${median(r.cockatiel).toFixed(3)} | ${diff >= 0 ? "+" : ""}${diff.toFixed(3)} |`);
}
console.log("\nown work per call (fetch answering from memory, bench/web/overhead.html), median of rounds");
console.log("| build | module µs | module, the calls sharing one long-lived signal µs | cockatiel µs |");
console.log("|---|---|---|---|");
for (const [b, r] of Object.entries(ratios)) {
  console.log(`| ${b} | ${median(r.moduleUs).toFixed(2)} | ${median(r.moduleSignalUs).toFixed(2)} | ${median(r.cockatielUs).toFixed(2)} |`);
}
