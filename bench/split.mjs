// Where the closed path's time goes, per call: before the page's fetch is
// called (the shim reading the call and deciding) and after fetch's promise
// resolves (the answer reaching the caller). A fetch installed before the
// module's script (so the module captures it) stamps both moments; native
// fetch and cockatiel call the same stamped fetch. Means in µs over 1,500
// calls each, interleaved. Run after bench/closed.mjs wrote its pages:
//   node bench/split.mjs [closed-new|closed-base]
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS, startGateway } from "../e2e/harness.mjs";

const pageName = process.argv[2] ?? "closed-new";
const gw = await startGateway();
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });
try {
  const page = await (await browser.newContext()).newPage();
  await page.addInitScript(() => {
    const real = fetch.bind(globalThis);
    const marks = (window.__marks = { called: 0, resolved: 0 });
    window.fetch = (input, init) => {
      marks.called = performance.now();
      const p = real(input, init);
      p.then(() => (marks.resolved = performance.now()), () => {});
      return p;
    };
  });
  await page.goto(`${gw.url}/bench/${pageName}.html`);
  await page.evaluate(() => gatewayCircuit.ready);
  const r = await page.evaluate(async () => {
    const variants = { native: (u) => fetch(u), module: gatewayCircuit.fetch, cockatiel: cockatielCircuit.fetch };
    const sums = Object.fromEntries(Object.keys(variants).map((n) => [n, { before: 0, after: 0, n: 0 }]));
    for (let i = 0; i < 1600; i++) {
      for (const [n, f] of Object.entries(variants)) {
        const t0 = performance.now();
        const res = await f("/api/fast");
        const t1 = performance.now();
        await res.arrayBuffer();
        if (i < 100) continue; // warm-up
        sums[n].before += window.__marks.called - t0;
        sums[n].after += t1 - window.__marks.resolved;
        sums[n].n++;
      }
    }
    return Object.fromEntries(Object.entries(sums).map(([n, s]) => [n, { "before fetch, µs": +(s.before / s.n * 1000).toFixed(1), "after it resolves, µs": +(s.after / s.n * 1000).toFixed(1) }]));
  });
  console.table(r);
} finally {
  await browser.close();
  await gw.stop();
}
