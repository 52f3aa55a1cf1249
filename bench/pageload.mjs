// make bench (after bench/run.mjs), or make bench-pageload: what each variant
// costs a page's load, in headless Chromium with network emulation and a cold
// cache. The page: a small static header (first paint), the variant's head
// script, a 300 KB app bundle (deferred) that renders the largest element and
// fires 10 queries to /api/ through the variant's fetch.
//
// Variants: none (plain fetch), module (default loading: the wasm is fetched
// at low priority after load and idle), module-inline (the same, the tag's
// file rendered inline with data-src), module-eager (data-load="eager"),
// reference (the seed-design plain-JS breaker, loaded the same way),
// reference-padded (the same, padded to the brotli size of the module's tag
// file: what the bytes alone cost). Then the same page server-rendered (the
// largest element in the HTML) with none, module and module-inline.
// Loads alternate variant by variant (the order rotating) in a fresh browser
// context each, cache disabled. Prints medians and ratios; writes
// build/bench/pageload.json.

import { mkdirSync, writeFileSync } from "node:fs";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS } from "../e2e/driver/chromium.mjs";
import { startPageLoadServer } from "./pageload-server.mjs";

const root = new URL("..", import.meta.url).pathname;
const LOADS = Math.max(5, Number(process.env.PAGELOAD_LOADS ?? 5));
const VARIANTS = ["none", "module", "module-inline", "module-eager", "reference", "reference-padded"];
const SSR_VARIANTS = ["none", "module", "module-inline"];
// CDP's latency is the request → response-headers minimum (the RTT);
// throughput is in bytes per second.
const PROFILES = {
  "Slow 4G": { latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8 },
  "Fast 4G": { latency: 40, downloadThroughput: 9e6 / 8, uploadThroughput: 1.5e6 / 8 },
};

const median = (xs) => {
  const s = xs.filter((x) => x != null).sort((a, b) => a - b);
  if (!s.length) return null;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const server = await startPageLoadServer(root);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });

/** One cold load of one variant under one profile. */
async function load(variant, profile, shape = "page") {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    page.on("pageerror", (e) => console.error(`pageerror (${variant}):`, e.message));
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    await cdp.send("Network.emulateNetworkConditions", { offline: false, ...PROFILES[profile] });
    let bytes = 0;
    cdp.on("Network.loadingFinished", (e) => (bytes += e.encodedDataLength));
    await page.goto(`${server.url}/${shape}/${variant}.html`, { waitUntil: "load", timeout: 60_000 });
    const isModule = variant.startsWith("module");
    await page.waitForFunction(
      (m) => window.__queriesError || window.__readyError || (window.__queries && window.__lcp && (!m || window.__ready)),
      isModule,
      { timeout: 60_000, polling: 50 },
    );
    const r = await page.evaluate(() => ({
      fcp: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? null,
      lcp: window.__lcp,
      lcpElement: document.getElementById("lcp") ? "h1#lcp" : null,
      queries: window.__queries,
      ready: window.__ready ?? null,
      error: window.__queriesError || window.__readyError || null,
    }));
    if (r.error) throw new Error(`${variant} (${profile}): ${r.error}`);
    // Responses still in flight (none expected) would be missed; settle briefly.
    await page.waitForTimeout(100);
    return { ...r, bytes };
  } finally {
    await context.close();
  }
}

const samples = {};
try {
  for (const profile of Object.keys(PROFILES)) {
    samples[profile] = Object.fromEntries(VARIANTS.map((v) => [v, []]));
    samples[`${profile}, server-rendered`] = Object.fromEntries(SSR_VARIANTS.map((v) => [v, []]));
    // One warm-up load per profile (not counted): the browser's own first-run costs.
    await load("none", profile);
    for (let i = 0; i < LOADS; i++) {
      for (let k = 0; k < VARIANTS.length; k++) {
        const v = VARIANTS[(i + k) % VARIANTS.length];
        samples[profile][v].push(await load(v, profile));
      }
      for (let k = 0; k < SSR_VARIANTS.length; k++) {
        const v = SSR_VARIANTS[(i + k) % SSR_VARIANTS.length];
        samples[`${profile}, server-rendered`][v].push(await load(v, profile, "ssr"));
      }
    }
  }
} finally {
  await browser.close();
  await server.stop();
}

const results = { date: new Date().toISOString(), chromium: browser.version(), loads: LOADS, appBytes: server.appBytes, profiles: {} };
for (const [profile, byVariant] of Object.entries(samples)) {
  results.profiles[profile] = {};
  for (const [v, xs] of Object.entries(byVariant)) {
    const m = (k) => median(xs.map((x) => x[k]));
    results.profiles[profile][v] = { fcp: m("fcp"), lcp: m("lcp"), queries: m("queries"), bytes: m("bytes"), ready: m("ready"), samples: xs };
  }
}

const pad = (s, n) => String(s).padEnd(n);
const ms = (x) => (x == null ? "—" : `${Math.round(x)}`);
const x2 = (a, b) => (a == null || b == null ? "—" : (a / b).toFixed(3));
const out = [`page load — ${results.date} — ${results.chromium} — cold cache, ${LOADS} loads per variant and profile, app bundle ${server.appBytes} B, medians in ms`];
const checks = [];
for (const [name, r] of Object.entries(results.profiles)) {
  const none = r.none;
  const [profile, ssr] = name.split(", ");
  out.push("", `${name} (${PROFILES[profile].latency} ms RTT, ${((PROFILES[profile].downloadThroughput * 8) / 1e6).toFixed(2)} Mbps down)`);
  out.push(`| ${pad("variant", 16)} | ${pad("FCP", 5)} | ${pad("LCP", 5)} | ${pad("10 queries", 10)} | ${pad("bytes", 7)} | ${pad("ready", 5)} | ${pad("FCP/none", 8)} | ${pad("LCP/none", 8)} | ${pad("queries/none", 12)} |`);
  out.push(`|${"-".repeat(18)}|-------|-------|------------|---------|-------|----------|----------|--------------|`);
  for (const [v, s] of Object.entries(r)) {
    out.push(`| ${pad(v, 16)} | ${pad(ms(s.fcp), 5)} | ${pad(ms(s.lcp), 5)} | ${pad(ms(s.queries), 10)} | ${pad(Math.round(s.bytes), 7)} | ${pad(ms(s.ready), 5)} | ${pad(x2(s.fcp, none.fcp), 8)} | ${pad(x2(s.lcp, none.lcp), 8)} | ${pad(x2(s.queries, none.queries), 12)} |`);
  }
  if (ssr) {
    // The inline stand-in: no request before the first paint, on the page whose largest paint comes with the HTML.
    checks.push([`FCP module-inline / none, ${name}`, r["module-inline"].fcp / none.fcp, 1.02]);
    checks.push([`LCP module-inline / none, ${name}`, r["module-inline"].lcp / none.lcp, 1.02]);
    checks.push([`FCP module (external tag) / none, ${name}`, r.module.fcp / none.fcp, null]);
    checks.push([`LCP module (external tag) / none, ${name}`, r.module.lcp / none.lcp, null]);
    continue;
  }
  const lcpTarget = profile === "Slow 4G" ? 1.05 : 1.03;
  checks.push([`LCP module / none, ${profile}`, r.module.lcp / none.lcp, lcpTarget]);
  checks.push([`FCP module / reference, ${profile}`, r.module.fcp / r.reference.fcp, 1.05]);
  // Not a target: how much of that the tag file's bytes alone explain.
  checks.push([`FCP padded reference / reference, ${profile}`, r["reference-padded"].fcp / r.reference.fcp, null]);
  checks.push([`FCP module-inline / none, ${profile}`, r["module-inline"].fcp / none.fcp, null]);
  checks.push([`LCP module-inline / none, ${profile}`, r["module-inline"].lcp / none.lcp, null]);
}
out.push("", `| ${pad("target", 58)} | ${pad("ratio", 6)} | target | ok |`, `|${"-".repeat(60)}|--------|--------|----|`);
for (const [name, x, t] of checks) out.push(`| ${pad(name, 58)} | ${pad(x.toFixed(3), 6)} | ${t == null ? "—     " : `≤ ${pad(t, 4)}`} | ${t == null ? "  " : x <= t ? "✓" : "✗"}  |`);
console.log(out.join("\n"));
mkdirSync(`${root}build/bench`, { recursive: true });
writeFileSync(`${root}build/bench/pageload.json`, `${JSON.stringify(results, null, 2)}\n`);
console.log("\nwritten: build/bench/pageload.json");
