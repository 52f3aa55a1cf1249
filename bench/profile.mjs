// A CPU profile (CDP, 50 µs sampling) of 1,500 closed-path calls through the
// module and through native fetch: self time per function, to see where the
// time goes. Run after make bench (it uses the pages make bench writes):
//   node bench/profile.mjs
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS, startGateway } from "../e2e/harness.mjs";
const gw = await startGateway();
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: [...CHROMIUM_ARGS] });
const page = await (await browser.newContext()).newPage();
await page.goto(`${gw.url}/bench/${process.env.BENCH_PAGE ?? "calls"}.html`);
await page.evaluate(() => gatewayCircuit.ready);
const cdp = await page.context().newCDPSession(page);
await cdp.send("Profiler.enable");
await cdp.send("Profiler.setSamplingInterval", { interval: 50 });
for (const which of ["module", "native", "cockatiel"]) {
  await cdp.send("Profiler.start");
  await page.evaluate(async (which) => {
    const f = which === "module" ? gatewayCircuit.fetch : which === "cockatiel" ? cockatielCircuit.fetch : fetch;
    for (let i = 0; i < 1500; i++) await (await f("/api/fast")).arrayBuffer();
  }, which);
  const { profile } = await cdp.send("Profiler.stop");
  const dt = {}; const byId = new Map(profile.nodes.map(n => [n.id, n]));
  const ti = profile.timeDeltas; let total = 0;
  profile.samples.forEach((id, i) => { const n = byId.get(id); const k = `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.split("/").pop()}:${n.callFrame.lineNumber}`; dt[k] = (dt[k] || 0) + (ti[i] || 0); total += ti[i] || 0; });
  const top = Object.entries(dt).sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.PROFILE_TOP ?? 25));
  console.log(`== ${which}: total ${(total/1000).toFixed(0)} ms`);
  for (const [k, v] of top) console.log((v / 1000).toFixed(1).padStart(8), "ms", k);
}
await browser.close(); await gw.stop();
