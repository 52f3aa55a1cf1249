// make bench-memory (part of make bench): what a long-lived page keeps per
// mutation. MEMORY_POSTS (default 30,000) in-scope POSTs, each a new action,
// through gatewayCircuit.fetch in one page and through the browser's fetch in
// another, against the demo gateway; memory after two forced GCs
// (e2e/memory.mjs says what is read). Growth is counted from a warm point
// (MEMORY_WARM POSTs, default 1,000: the ledger is at its cap of 64 entries
// by then) to the end. The bar: the module's backing store and JS heap grow
// at most native fetch's growth + 10 MiB.
//
// MEMORY_SIGNAL=shared: every POST with one long-lived signal (one per
// component, as apps keep them), in both pages. MEMORY_WASM=missing: the
// wasm answers 404, so the module runs as its fallback.
//
// Prints a table, writes build/bench/memory.json, exits 1 when over the bar.
//
//   MEMORY_POSTS=30000 node bench/memory.mjs

import { mkdirSync, writeFileSync } from "node:fs";
import { startGateway } from "../e2e/harness.mjs";
import { CONCURRENCY, SLACK_BYTES, launchForMemory, measure, table } from "../e2e/memory.mjs";

const root = new URL("..", import.meta.url).pathname;
const N = Number(process.env.MEMORY_POSTS ?? 30_000);
const WARM = Number(process.env.MEMORY_WARM ?? Math.min(1000, Math.floor(N / 10)));

const gw = await startGateway();
const browser = await launchForMemory();
let failed = false;
try {
  const sharedSignal = process.env.MEMORY_SIGNAL === "shared";
  const wasmMissing = process.env.MEMORY_WASM === "missing";
  const native = await measure(browser, gw, { via: "native", n: N, warm: WARM, sharedSignal });
  const module = await measure(browser, gw, { via: "module", n: N, warm: WARM, sharedSignal, wasmMissing });
  const over = (k) => module.growth[k] - native.growth[k];
  failed = over("backing") > SLACK_BYTES || over("heap") > SLACK_BYTES || module.status !== (wasmMissing ? "fallback" : "ready") || module.problems.length > 0;
  console.log(`memory per mutation — ${new Date().toISOString()} — ${browser.version()} — ${N} POSTs, ${CONCURRENCY} at a time${sharedSignal ? ", one shared signal" : ""}${wasmMissing ? ", the wasm missing (fallback)" : ""}, after 2 forced GCs`);
  console.log(table(module, native));
  for (const p of [...module.problems, ...native.problems]) console.log(`problem: ${p}`);
  mkdirSync(`${root}build/bench`, { recursive: true });
  writeFileSync(`${root}build/bench/memory.json`, `${JSON.stringify({ date: new Date().toISOString(), chromium: browser.version(), module, native }, null, 2)}\n`);
  console.log("written: build/bench/memory.json");
  console.log(failed ? "memory: FAILED" : "memory: ok");
} finally {
  await browser.close();
  await gw.stop();
}
process.exit(failed ? 1 : 0);
