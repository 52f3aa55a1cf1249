// make bench-edge: the edge's figures, measured in workerd on this machine.
//   - a cache hit's latency vs a pass-through JS worker in the same workerd
//     (and the upstream asked directly), p50/p90 over interleaved requests;
//   - workerd's resident memory over 10,000 hits and over 10,000 misses
//     (distinct keys, the LRU bound at work);
//   - the worker's size (raw and gzip -9; the free plan allows 3 MB gzip);
//   - cold start: workerd's port open → the first answer (Go instance
//     started, Durable Object opened, state restored), vs the next one.
// Writes build/edge/bench.json and prints a Markdown table.
import { readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { buildDir, startEdge, startUpstream } from "./test/workerd.mjs";

const LATENCY_ROUNDS = Number(process.env.EDGE_BENCH_ROUNDS ?? 2000);
const MEMORY_REQUESTS = Number(process.env.EDGE_BENCH_REQUESTS ?? 10_000);

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const ms = (x) => x.toFixed(3);

async function timed(url) {
  const t = performance.now();
  const r = await fetch(url);
  await r.arrayBuffer();
  return [performance.now() - t, r];
}

function rssKiB(pid) {
  const m = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/);
  return Number(m[1]);
}

async function pool(n, concurrency, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < n) await fn(next++);
  }));
}

const up = await startUpstream();
const edge = await startEdge({ upstream: up.url, services: [{ name: "api", prefix: "/api/", cache: { freshTtlMs: 3_600_000, maxStaleMs: 3_600_000 } }] }, { waitHttp: false });
const results = {};
try {
  // Cold start: the first request after workerd opened its port.
  const [cold, coldRes] = await timed(edge.url + "/api/bench");
  const [warm2] = await timed(edge.url + "/api/bench");
  if (coldRes.status !== 200) throw new Error("cold request: " + coldRes.status);
  await edge.stop(); // again, now with state to restore from SQLite
  await edge.start(); // returns when the port is open
  const [coldRestored, r] = await timed(edge.url + "/api/bench");
  results.coldStart = { firstRequestMs: cold, secondRequestMs: warm2, firstAfterRestartMs: coldRestored, firstAfterRestartCache: r.headers.get("x-edge-cache") };

  // Latency: interleaved, after a warm-up.
  const hit = [], pass = [], direct = [];
  for (let i = 0; i < 200; i++) {
    await timed(edge.url + "/api/bench");
    await timed(edge.passUrl + "/api/bench");
  }
  for (let i = 0; i < LATENCY_ROUNDS; i++) {
    const [a, r] = await timed(edge.url + "/api/bench");
    if (r.headers.get("x-edge-cache") !== "hit") throw new Error("not a hit: " + r.headers.get("x-edge-cache"));
    hit.push(a);
    pass.push((await timed(edge.passUrl + "/api/bench"))[0]);
    direct.push((await timed(up.url + "/api/bench"))[0]);
  }
  results.latency = {
    rounds: LATENCY_ROUNDS,
    hitP50: pct(hit, 50), hitP90: pct(hit, 90),
    passP50: pct(pass, 50), passP90: pct(pass, 90),
    directP50: pct(direct, 50), directP90: pct(direct, 90),
  };

  // Memory: 10,000 hits, then 10,000 misses on distinct keys (LRU at 2,000).
  const pid = edge.child.pid;
  const memory = (label, samples) => ({ label, startKiB: samples[0].rssKiB, endKiB: samples.at(-1).rssKiB, maxKiB: Math.max(...samples.map((s) => s.rssKiB)), samples });
  const sample = async () => ({ rssKiB: rssKiB(pid), ...(await (await edge.admin("/__edge/runtime")).json()) });
  const run = async (label, path, base = edge.url) => {
    const samples = [await sample()];
    let done = 0;
    await pool(MEMORY_REQUESTS, 8, async (i) => {
      await (await fetch(base + path(i))).arrayBuffer();
      if (++done % 1000 === 0) samples.push(await sample());
    });
    return memory(label, samples);
  };
  results.memoryPass = await run("pass-through JS worker (baseline, same process)", () => "/api/bench", edge.passUrl);
  results.memoryHits = await run("hits", () => "/api/bench");
  results.memoryMisses = await run("misses (distinct keys)", (i) => "/api/miss/" + i);
  results.metrics = await edge.metrics("service=api");
} finally {
  await edge.close();
  up.stop();
}

// Size.
const wasm = readFileSync(join(buildDir, "edge.wasm"));
const js = Buffer.concat(["worker.mjs", "wasm_exec.js"].map((f) => readFileSync(join(buildDir, f))));
results.size = { wasmRaw: wasm.length, wasmGzip: gzipSync(wasm, { level: 9 }).length, jsRaw: js.length, jsGzip: gzipSync(js, { level: 9 }).length };

writeFileSync(join(buildDir, "bench.json"), JSON.stringify(results, null, 2));
const L = results.latency, C = results.coldStart, S = results.size;
console.log(`
| edge figure | value |
|---|---|
| cache hit p50 / p90 (edge → Durable Object → Go → SQLite) | ${ms(L.hitP50)} / ${ms(L.hitP90)} ms |
| pass-through JS worker p50 / p90 (→ upstream) | ${ms(L.passP50)} / ${ms(L.passP90)} ms |
| upstream asked directly p50 / p90 | ${ms(L.directP50)} / ${ms(L.directP90)} ms |
| hit − pass-through, p50 | ${ms(L.hitP50 - L.passP50)} ms (${L.rounds} interleaved rounds) |
| workerd RSS over ${MEMORY_REQUESTS} pass-through requests first (baseline) | ${results.memoryPass.startKiB} → ${results.memoryPass.endKiB} KiB (max ${results.memoryPass.maxKiB}) |
| workerd RSS over ${MEMORY_REQUESTS} hits next | ${results.memoryHits.startKiB} → ${results.memoryHits.endKiB} KiB (max ${results.memoryHits.maxKiB}) |
| workerd RSS over ${MEMORY_REQUESTS} misses next | ${results.memoryMisses.startKiB} → ${results.memoryMisses.endKiB} KiB (max ${results.memoryMisses.maxKiB}) |
| edge.wasm raw / gzip -9 | ${S.wasmRaw} / ${S.wasmGzip} bytes |
| worker.mjs + wasm_exec.js raw / gzip -9 | ${S.jsRaw} / ${S.jsGzip} bytes |
| cold start: first request after workerd opened its port | ${ms(C.firstRequestMs)} ms (next: ${ms(C.secondRequestMs)} ms) |
| cold start after a restart, state restored from SQLite | ${ms(C.firstAfterRestartMs)} ms (${C.firstAfterRestartCache}) |
`);
for (const m of [results.memoryPass, results.memoryHits, results.memoryMisses]) {
  console.log(`${m.label}, every 1,000 requests: RSS KiB / wasm memory MiB / Go heap KiB / Go GCs / live JS refs`);
  console.log("  " + m.samples.map((s) => `${s.rssKiB}/${(s.wasmBytes / 2 ** 20).toFixed(0)}/${(s.heapAlloc / 1024).toFixed(0)}/${s.numGC}/${s.liveRefs}`).join("  "));
}
console.log("counters", JSON.stringify(results.metrics.counters));
