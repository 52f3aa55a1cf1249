// How long a request the gate holds for Go waits on a reload while the
// stored circuit is half-open (the probe is Go's to pick), or, with
// HELD=scout, open with its scouting stored (F5 sends no scout: Go answers
// open), on a page whose load event a slow image (1.5 s) holds back.
// Chromium, loopback, 7 loads, the median printed.
//
//   make build-product && DIST=dist node bench/held.mjs
//   DIST=<another build's dist> LABEL=base node bench/held.mjs
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { launchBrowser } from "../e2e/harness.mjs";
import { listenLoopback } from "../e2e/loopback.mjs";

const dist = process.env.DIST ?? "dist";
const http = createServer((req, res) => {
  const path = new URL(req.url, "http://x").pathname;
  if (path.startsWith("/api/")) return res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  if (path === "/slow.png") return setTimeout(() => res.writeHead(200, { "content-type": "image/png" }).end(""), 1500);
  if (path === "/") {
    return res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html><html><head><script src="/gateway-circuit.js" data-scope="/api/"></script></head><body>
<img src="/slow.png"><script>
gatewayCircuit.fetch("/api/x").then(() => { window.done = performance.now(); });
</script></body></html>`);
  }
  const file = join(dist, path);
  if (!/^\/gateway-circuit[\w.-]*\.(js|wasm)$/.test(path) || !existsSync(file)) return res.writeHead(404).end();
  res.writeHead(200, { "content-type": path.endsWith(".wasm") ? "application/wasm" : "text/javascript" }).end(readFileSync(file));
});
const server = await listenLoopback(http);
const browser = await launchBrowser();
const results = [];
for (let i = 0; i < 7; i++) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(server.url + "/");
  await page.waitForFunction(() => window.done !== undefined);
  await page.evaluate((scout) => {
    const t = Date.now();
    if (scout) {
      // An open period the trip rule armed, which may still send its scout (circuit.ScoutKey's format): F5 sends none.
      sessionStorage.setItem("gateway_circuit_v1", JSON.stringify({ until: t + 60000, httpStatus: 502 }));
      sessionStorage.setItem("gateway_circuit_v1_scout", `${t + 60000} 0`);
    } else sessionStorage.setItem("gateway_circuit_v1", JSON.stringify({ until: t - 1000, httpStatus: 502, halfOpenUntil: t + 600000 }));
  }, process.env.HELD === "scout");
  await page.reload();
  await page.waitForFunction(() => window.done !== undefined, null, { timeout: 20000 });
  results.push(await page.evaluate(() => window.done));
  await context.close();
}
results.sort((a, b) => a - b);
console.log(process.env.LABEL ?? dist, "held request answered at (ms after navigation start), median of 7:", results[3].toFixed(0), JSON.stringify(results.map((r) => Math.round(r))));
await browser.close();
await server.stop();
