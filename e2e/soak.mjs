// make soak: SOAK_REQUESTS (default 20,000) requests through
// gatewayCircuit.fetch in Chromium against /fault/soak/, the gateway's
// answer of each (ok/502/503/504/429/slow) picked by a seeded PRNG in the
// page (e2e/pages/soak.js), with a short TTL so the circuit arms and
// expires many times. Checked against the gateway's arrival log:
//   1. no call started while the circuit was armed reached the network while
//      it was still armed, but the window's scout: the module sent at most
//      one scout (nothing here aborts or is opaque, which would free the
//      slot once) in a window the trip rule armed in this page (armed from
//      closed; a failed probe's, armed from half-open, has none: its
//      metrics().scouts, read as the window opened and ended), and the calls
//      that reached the network are no more than it sent, each the first
//      started in the window that asked the circuit (the 429 cooldown answers
//      before it): every call has a key of its own, so that is the first key
//      the window had not seen;
//   2. a call the module answered itself (X-Gateway-Circuit: open, cooldown
//      or negative) never reached the network, and every call that got a
//      gateway answer (no marker, or a stale copy after a failure) did;
//   3. every call settled (within 15 s);
//   4. memory stays bounded: wasm linear memory, JS heap after GC, and the
//      JS values Go holds (a leaked js.Func or js.Value would grow them),
//      under absolute caps (below); the growth after warm-up is reported;
//   5. mutations keep nothing: SOAK_MUTATIONS (default 2,000) in-scope POSTs,
//      each a new action with its idempotency key, all with one long-lived
//      signal (one per component, as apps keep them: the module listened to
//      it for good, ~1.5 KB per call), in a page of their own
//      (e2e/memory.mjs); after 200 (the ledger is full by then) the backing
//      store and the JS heap, read after forced GCs, grow less than 1 KB per
//      POST. (make bench-memory runs 30,000 against native fetch.)
// Prints a table, writes build/soak/results.json, exits 1 on a violation.
//
//   SOAK_REQUESTS=2000 SOAK_SEED=7 SOAK_TTL_MS=300 node e2e/soak.mjs

import { mkdirSync, writeFileSync } from "node:fs";
import { chromium } from "playwright-core";
import { spyOnGo } from "./gospy.mjs";
import { CHROMIUM_ARGS, startGateway } from "./harness.mjs";
import { measure } from "./memory.mjs";

const root = new URL("..", import.meta.url).pathname;
const N = Number(process.env.SOAK_REQUESTS ?? 20_000);
const SEED = Number(process.env.SOAK_SEED ?? 1);
const TTL = Number(process.env.SOAK_TTL_MS ?? 300);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 6); // Chromium's HTTP/1.1 connections per host
const MUTATIONS = Number(process.env.SOAK_MUTATIONS ?? 2000);
const MUTATIONS_WARM = 200;
// A memory bound, not a timing: what a page may keep per mutation, counted
// over the POSTs after the warm-up. The ledger's strings kept per POST were
// ~18 KB; a POST of native fetch keeps ~15 B of heap.
const PER_MUTATION_CAP = 1024;

const gw = await startGateway();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: [...CHROMIUM_ARGS, "--js-flags=--expose-gc", "--enable-precise-memory-info"],
});
let failed = false;
try {
  const context = await browser.newContext();
  await context.addInitScript(spyOnGo); // to count the JS values Go holds
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) problems.push(`console.error: ${m.text()}`);
  });
  await fetch(`${gw.url}/fault/reset`, { method: "POST" });
  await page.goto(`${gw.url}/fault/page?scope=/fault/soak/&ttl=${TTL}`);
  await page.waitForFunction(() => gatewayCircuit.status === "ready", null, { timeout: 15_000 });
  await page.addScriptTag({ path: `${root}e2e/pages/soak.js` });

  const started = Date.now();
  const r = await page.evaluate((o) => window.soak(o), { n: N, seed: SEED, concurrency: CONCURRENCY });
  const wall = Date.now() - started;
  problems.push(...(await page.evaluate(() => window.__problems)));
  const arrivals = await (await fetch(`${gw.url}/fault/arrivals`)).json();

  // Invariants.
  const arrivedIds = new Map(); // id → first arrival time
  for (const a of arrivals) if (!arrivedIds.has(Number(a.id))) arrivedIds.set(Number(a.id), a.t);
  const windowAt = (t) => r.windows.find((w) => w.from <= t && t < w.to);
  const violations = [];
  let startedWhileArmed = 0;
  let startedWhileArmedReached = 0;
  // Each window's first call that asked the circuit: the one that may scout.
  for (let i = 0; i < N; i++) {
    const c = r.calls[i];
    const w = !c.hung && c.marker !== "cooldown" && windowAt(c.t);
    if (w && (w.first === undefined || c.t < r.calls[w.first].t)) w.first = i;
  }
  for (const w of r.windows) {
    const most = w.after === "closed" ? 1 : 0;
    if (w.scouts > most) violations.push(`the module sent ${w.scouts} scouts in the window from ${w.from} to ${w.to} (armed from ${w.after}: at most ${most})`);
  }
  const scouts = new Map(); // window → the call that reached the network as its scout
  for (const a of arrivals) {
    const i = Number(a.id);
    const c = r.calls[i];
    const w = windowAt(a.t);
    if (!w || c.t < w.from || scouts.get(w) === i) continue;
    const why = w.scouts === 0 ? `the module sent no scout in it (armed from ${w.after})`
      : scouts.has(w) ? `#${scouts.get(w)} was its scout`
      : c.t !== r.calls[w.first].t ? `#${w.first} started first, at ${r.calls[w.first].t}`
      : null;
    if (why === null) scouts.set(w, i);
    else violations.push(`#${i} (${r.plan[i]}) started at ${c.t} in the window from ${w.from}, reached the network at ${a.t} before ${w.to} (${why})`);
  }
  let synthetic = 0, network = 0, errors = 0, hung = 0;
  const statuses = {};
  const markers = {};
  for (let i = 0; i < N; i++) {
    const c = r.calls[i];
    if (c.hung) { hung++; violations.push(`#${i} never settled`); continue; }
    if (c.err) { errors++; statuses[c.err] = (statuses[c.err] ?? 0) + 1; continue; }
    statuses[c.s] = (statuses[c.s] ?? 0) + 1;
    if (c.marker) markers[c.marker] = (markers[c.marker] ?? 0) + 1;
    if (c.marker && c.marker !== "stale") {
      synthetic++;
      if (arrivedIds.has(i)) violations.push(`#${i} was answered by the module (${c.marker}) but reached the network`);
    } else {
      network++;
      if (!arrivedIds.has(i)) violations.push(`#${i} got status ${c.s} without reaching the network`);
    }
    const w = r.windows.find((w) => w.from + 2 <= c.t && c.t < w.to - 2);
    if (w) {
      startedWhileArmed++;
      if (arrivedIds.has(i)) startedWhileArmedReached++;
    }
  }
  const warm = r.samples.find((s) => s.i >= N / 10) ?? r.before;
  const growth = (k) => r.after[k] - warm[k];
  // The mutations, in a page of their own: the request soak's page has
  // mutations in it too, but its memory is about the request mix.
  const mutations = await measure(browser, gw, { via: "module", n: MUTATIONS, warm: MUTATIONS_WARM, samples: 4, sharedSignal: true });
  problems.push(...mutations.problems);

  const result = {
    date: new Date().toISOString(),
    chromium: browser.version(),
    requests: N,
    seed: SEED,
    ttlMs: TTL,
    concurrency: CONCURRENCY,
    wallMs: wall,
    runMs: r.ms,
    moduleStatus: r.status,
    runsPerMode: r.runs,
    armedWindows: r.windows.length,
    reachedNetwork: arrivedIds.size,
    arrivals: arrivals.length,
    answeredByCircuit: synthetic,
    answeredByNetwork: network,
    rejected: errors,
    hung,
    statuses,
    markers,
    startedWhileArmed,
    startedWhileArmedReached,
    scouts: scouts.size,
    scoutsSent: r.windows.reduce((n, w) => n + w.scouts, 0),
    windowsArmedWhen: r.windows.reduce((n, w) => ({ ...n, [w.after]: (n[w.after] ?? 0) + 1 }), {}),
    memory: { before: r.before, warm, after: r.after, growth: { wasmBytes: growth("wasmBytes"), heapBytes: growth("heapBytes"), goRefs: growth("goRefs") } },
    samples: r.samples,
    mutations: { posts: MUTATIONS, warmAt: MUTATIONS_WARM, status: mutations.status, growth: mutations.growth, perPost: mutations.perPost, samples: mutations.samples },
    problems,
    violations: violations.slice(0, 50),
    violationCount: violations.length,
  };
  // Absolute caps, not "no growth": Go frees the JS values it touched only
  // when its GC runs finalizers, and its heap grows to ~4 MB before the first
  // GC, so a few hundred KB and a few dozen values come and go. A leak per
  // request (a js.Func, a JS value, 1 KB of Go or JS memory) passes the caps
  // within 20,000 requests.
  const CAPS = { wasmBytes: 16 * 1024 * 1024, goRefs: 1000, heapGrowth: 8 * 1024 * 1024 };
  const leaks = [];
  const peak = (k) => Math.max(r.after[k], ...r.samples.map((s) => s[k]));
  if (peak("wasmBytes") > CAPS.wasmBytes) leaks.push(`wasm memory reached ${peak("wasmBytes")} B (cap ${CAPS.wasmBytes})`);
  if (peak("goRefs") > CAPS.goRefs) leaks.push(`Go held ${peak("goRefs")} JS values (cap ${CAPS.goRefs})`);
  if (growth("heapBytes") > CAPS.heapGrowth) leaks.push(`JS heap grew ${growth("heapBytes")} B after warm-up (cap ${CAPS.heapGrowth})`);
  for (const [k, what] of [["backing", "backing store"], ["heap", "JS heap"]]) {
    if (mutations.perPost[k] >= PER_MUTATION_CAP) {
      leaks.push(`${what} grew ${mutations.perPost[k].toFixed(0)} B per mutation over ${MUTATIONS - MUTATIONS_WARM} POSTs (cap ${PER_MUTATION_CAP} B)`);
    }
  }
  if (mutations.status !== "ready") leaks.push(`module status ${mutations.status} after the mutations`);
  result.caps = { ...CAPS, perMutation: PER_MUTATION_CAP };
  result.leaks = leaks;
  failed = violations.length > 0 || problems.length > 0 || leaks.length > 0 || r.status !== "ready";

  mkdirSync(`${root}build/soak`, { recursive: true });
  writeFileSync(`${root}build/soak/results.json`, JSON.stringify(result, null, 2));
  const kb = (b) => `${(b / 1024).toFixed(0)} KB`;
  console.log(`soak: ${N} requests, seed ${SEED}, TTL ${TTL} ms, ${CONCURRENCY} at a time, ${(wall / 1000).toFixed(1)} s`);
  console.log(`| what | value |\n|---|---|`);
  for (const [k, v] of [
    ["runs per mode (1-40 requests each)", JSON.stringify(r.runs)],
    ["armed windows (arm → expiry)", r.windows.length],
    ["answered by the module / by the network / rejected / hung", `${synthetic} / ${network} / ${errors} / ${hung}`],
    ["X-Gateway-Circuit markers", JSON.stringify(markers)],
    ["statuses seen", JSON.stringify(statuses)],
    ["requests that reached the gateway (distinct / arrivals)", `${arrivedIds.size} / ${arrivals.length}`],
    ["started while armed → reached the network", `${startedWhileArmed} → ${startedWhileArmedReached}`],
    ["scouts the module sent in armed windows / that reached the network while armed", `${result.scoutsSent} / ${scouts.size}`],
    ["armed windows by what the circuit was before (closed: may have a scout)", JSON.stringify(result.windowsArmedWhen)],
    ["invariant violations", violations.length],
    ["wasm memory: start → warm → end", `${kb(r.before.wasmBytes)} → ${kb(warm.wasmBytes)} → ${kb(r.after.wasmBytes)}`],
    ["JS heap after GC: start → warm → end", `${kb(r.before.heapBytes)} → ${kb(warm.heapBytes)} → ${kb(r.after.heapBytes)}`],
    ["JS values held by Go: start → warm → end", `${r.before.goRefs} → ${warm.goRefs} → ${r.after.goRefs}`],
    [`${MUTATIONS - MUTATIONS_WARM} mutations: backing store / JS heap growth per POST`, `${Math.round(mutations.perPost.backing) || 0} / ${Math.round(mutations.perPost.heap) || 0} B (cap ${PER_MUTATION_CAP} B)`],
    ["mutations: JS values held by Go, warm → end", `${mutations.samples[1].goRefs} → ${mutations.samples.at(-1).goRefs}`],
    ["page problems", problems.length],
    ["module status at the end", r.status],
  ]) console.log(`| ${k} | ${v} |`);
  for (const v of violations.slice(0, 10)) console.log(`violation: ${v}`);
  for (const p of problems.slice(0, 10)) console.log(`problem: ${p}`);
  for (const l of leaks) console.log(`leak: ${l}`);
  console.log(`memory growth after warm-up: wasm ${growth("wasmBytes")} B, JS heap ${growth("heapBytes")} B, JS values held by Go ${growth("goRefs")}`);
  console.log(failed ? "soak: FAILED" : "soak: ok");
} finally {
  await browser.close();
  await gw.stop();
}
process.exit(failed ? 1 : 0);
