// The measuring half of edge/syumai-compare.sh: in one workerd, a pure JS
// worker, the edge's own glue reduced to a hello, and syumai/workers' handler
// (alone, and with its fetch client). Prints JSON:
//   sizes  wasm raw / gzip -9
//   cold   [first, second] request of each Go worker, ms, over six workerd
//          starts (after one request to the JS worker: the process's first
//          request is slower whichever worker gets it; the Go workers take
//          turns at going first)
//   warm   p50 / p90 over interleaved rounds on a kept-alive connection
//          (/hello; js-up and syumai-up fetch a local upstream)
//   rss    workerd's resident memory before / after the rounds, MiB
// node edge/syumai-compare.mjs RUN_DIR [ROUNDS]
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import http from "node:http";
import { gzipSync } from "node:zlib";
import { join } from "node:path";
import { freePort, workerdBinary } from "./test/workerd.mjs";

const dir = process.argv[2];
const rounds = Number(process.argv[3] ?? 2000);
const names = ["js", "own", "syumaihello", "syumai"];
const COLD_RUNS = 6;
const ports = [];
for (const _ of names) ports.push(await freePort());
const port = (n) => ports[names.indexOf(n)];

const worker = (modules) =>
  `(compatibilityDate = "2025-09-01", globalOutbound = "net", modules = [${modules.map(([name, kind, file]) => `(name = "${name}", ${kind} = embed "${file}")`).join(", ")}])`;
const syumai = (n) => worker([["worker.mjs", "esModule", `${n}/worker.mjs`], ["runtime.mjs", "esModule", `${n}/runtime.mjs`], ["wasm_exec.js", "esModule", `${n}/wasm_exec.js`], ["app.wasm", "wasm", `${n}/app.wasm`]]);
const workers = {
  js: worker([["js.mjs", "esModule", "js/js.mjs"]]),
  own: worker([["own.mjs", "esModule", "own/own.mjs"], ["wasm_exec.js", "esModule", "own/wasm_exec.js"], ["own.wasm", "wasm", "own/own.wasm"]]),
  syumaihello: syumai("syumaihello"),
  syumai: syumai("syumai"),
};
writeFileSync(join(dir, "config.capnp"), `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [${names.map((n) => `(name = "${n}", worker = ${workers[n]})`).join(",\n    ")},
    (name = "net", network = (allow = ["public", "private", "local"]))],
  sockets = [${names.map((n) => `(name = "${n}", address = "127.0.0.1:${port(n)}", http = (), service = "${n}")`).join(", ")}],
);
`);

const upstream = http.createServer((_, res) => res.end("upstream ok")).listen(0, "127.0.0.1");
await new Promise((r) => upstream.on("listening", r));
const upPath = "/up?u=" + encodeURIComponent(`http://127.0.0.1:${upstream.address().port}/x`);

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function get(p, path) {
  return new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    http.get({ host: "127.0.0.1", port: p, path, agent }, (r) => {
      let body = "";
      r.on("data", (d) => (body += d));
      r.on("end", () => resolve({ ms: Number(process.hrtime.bigint() - t) / 1e6, status: r.statusCode, body }));
    }).on("error", reject);
  });
}
const tcp = (p) => new Promise((resolve, reject) => { const s = connect(p, "127.0.0.1", () => { s.end(); resolve(); }); s.on("error", reject); });

async function startWorkerd() {
  const child = spawn(workerdBinary(), ["serve", "config.capnp"], { cwd: dir, stdio: ["ignore", "inherit", "inherit"] });
  for (;;) {
    try {
      await Promise.all(ports.map(tcp));
      return child;
    } catch {
      if (child.exitCode !== null) throw new Error("workerd exited");
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
async function stop(child) {
  child.kill("SIGKILL");
  if (child.exitCode === null) await new Promise((r) => child.on("exit", r));
}
const rssMiB = (pid) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024);
const pct = (a, p) => [...a].sort((x, y) => x - y)[Math.floor((a.length - 1) * p)];
const r3 = (x) => Math.round(x * 1000) / 1000;

const out = { sizes: {}, cold: {}, coldMedian: {}, warm: {}, rss: {} };
for (const [n, f] of [["own", "own/own.wasm"], ["syumaihello", "syumaihello/app.wasm"], ["syumai", "syumai/app.wasm"]]) {
  const b = readFileSync(join(dir, f));
  out.sizes[n] = { raw: b.length, gzip: gzipSync(b, { level: 9 }).length };
}
const goWorkers = names.slice(1);
for (let run = 0; run < COLD_RUNS; run++) {
  const child = await startWorkerd();
  await get(port("js"), "/hello"); // the process's own first request is not any worker's cold start
  for (const n of [...goWorkers.slice(run % 3), ...goWorkers.slice(0, run % 3)]) {
    const first = await get(port(n), "/hello");
    const second = await get(port(n), "/hello");
    if (first.body !== "ok") throw new Error(`${n}: ${first.status} ${first.body}`);
    (out.cold[n] ??= []).push([r3(first.ms), r3(second.ms)]);
  }
  await stop(child);
}
const child = await startWorkerd();
for (const n of names) await get(port(n), "/hello");
const up = await get(port("syumai"), upPath);
out.syumaiFetchClient = `${up.status} ${up.body}`;
const lat = {};
out.rss.before = rssMiB(child.pid);
for (let i = 0; i < rounds; i++) {
  for (const n of names) (lat[n] ??= []).push((await get(port(n), "/hello")).ms);
  for (const n of ["js", "syumai"]) (lat[n + "-up"] ??= []).push((await get(port(n), upPath)).ms);
}
out.rss.after = rssMiB(child.pid);
for (const n of goWorkers) out.coldMedian[n] = r3(pct(out.cold[n].map((c) => c[0]), 0.5));
for (const [n, a] of Object.entries(lat)) out.warm[n] = { p50: r3(pct(a, 0.5)), p90: r3(pct(a, 0.9)) };
await stop(child);
upstream.close();
agent.destroy();
console.log(JSON.stringify(out));
