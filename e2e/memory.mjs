// What a page keeps per mutation: in-scope POSTs, each a new action (a body
// of its own, so each gets a key and an entry in the idempotency ledger),
// through gatewayCircuit.fetch or the browser's fetch, in a fresh page, with
// memory read over CDP after two forced GCs (HeapProfiler.collectGarbage):
// the JS heap (Runtime.getHeapUsage's usedSize), the backing store (its
// backingStorageSize: array buffers and external strings), wasm memory, and
// the JS values Go holds (wasm_exec's table). Used by bench/memory.mjs (make
// bench-memory: 30,000 against native fetch) and e2e/soak.mjs (a bound per POST).

import { chromium } from "playwright-core";
import { spyOnGo } from "./gospy.mjs";
import { CHROMIUM_ARGS } from "./harness.mjs";

export const MiB = 2 ** 20;

/** The bar: growth ≤ native's + this. */
export const SLACK_BYTES = 10 * MiB;

/** POSTs run at once, like the soak (Chromium's HTTP/1.1 connections per host). */
export const CONCURRENCY = 6;

/**
 * Sends n POSTs through `via` ("module" or "native") in a fresh page of
 * browser against gw, and samples memory every n/samples POSTs after forced
 * GCs. Returns {via, posts, warmAt, samples: [{posts, heap, backing, wasm, goRefs}], growth}.
 */
export async function measure(browser, gw, { via, n, warm, samples = 10, sharedSignal = false, wasmMissing = false }) {
  const context = await browser.newContext();
  try {
    await context.addInitScript(spyOnGo); // to count the JS values Go holds
    // wasmMissing: the wasm cannot load, so the module runs as its fallback (the stored state honoured, nothing else).
    if (wasmMissing) await context.route(/\.wasm$/, (route) => route.fulfill({ status: 404, body: "" }));
    const page = await context.newPage();
    const problems = [];
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    await page.goto(`${gw.url}/fault/page?scope=/fault/api/`);
    const want = wasmMissing ? "fallback" : "ready";
    if (via === "module") await page.waitForFunction((want) => gatewayCircuit.status === want, want, { timeout: 15_000 });
    const cdp = await context.newCDPSession(page);
    const read = async (posts) => {
      await cdp.send("HeapProfiler.collectGarbage");
      await cdp.send("HeapProfiler.collectGarbage");
      const u = await cdp.send("Runtime.getHeapUsage");
      const inPage = await page.evaluate(() => {
        const go = window.__go?.at(-1);
        return {
          wasm: go?._inst?.exports.mem.buffer.byteLength ?? 0,
          goRefs: go?._values ? go._values.length - go._idPool.length : 0,
        };
      });
      return { posts, heap: u.usedSize, backing: u.backingStorageSize ?? 0, ...inPage };
    };
    const post = (from, to) =>
      page.evaluate(
        async ([via, from, to, concurrency, shared]) => {
          const f = via === "module" ? gatewayCircuit.fetch : fetch;
          // sharedSignal: every call with one long-lived signal (one per component, as apps keep them).
          const signal = shared ? (window.__signal ??= new AbortController().signal) : undefined;
          let next = from;
          const worker = async () => {
            while (next < to) {
              const i = next++;
              const res = await f("/fault/api/ok", {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({ order: i, note: "a new action each time" }),
                signal,
              });
              await res.arrayBuffer();
              if (!res.ok) throw new Error(`POST ${i}: ${res.status}`);
            }
          };
          await Promise.all(Array.from({ length: concurrency }, worker));
        },
        [via, from, to, CONCURRENCY, sharedSignal],
      );

    const points = [await read(0)];
    await post(0, warm);
    const warmPoint = await read(warm);
    points.push(warmPoint);
    const step = Math.max(1, Math.ceil((n - warm) / samples));
    for (let done = warm; done < n; ) {
      const to = Math.min(n, done + step);
      await post(done, to);
      done = to;
      points.push(await read(done));
    }
    const end = points.at(-1);
    const growth = {
      heap: end.heap - warmPoint.heap,
      backing: end.backing - warmPoint.backing,
      wasm: end.wasm - warmPoint.wasm,
      goRefs: end.goRefs - warmPoint.goRefs,
    };
    const perPost = (bytes) => bytes / Math.max(1, n - warm);
    const status = via === "module" ? await page.evaluate(() => gatewayCircuit.status) : "native";
    return { via, posts: n, warmAt: warm, status, samples: points, growth, perPost: { heap: perPost(growth.heap), backing: perPost(growth.backing) }, problems };
  } finally {
    await context.close();
  }
}

export async function launchForMemory() {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });
}

const mib = (b) => `${(Math.abs(b) < MiB / 200 ? 0 : b / MiB).toFixed(2)} MiB`; // no "-0.00"

/** The table rows for a module run beside a native one. */
export function table(module, native) {
  const rows = [`| ${module.posts - module.warmAt} POSTs after ${module.warmAt} | module | native fetch | module − native | bar |`, "|---|---|---|---|---|"];
  for (const [name, k] of [
    ["backing store growth (array buffers, external strings)", "backing"],
    ["JS heap growth after GC", "heap"],
  ]) {
    const over = module.growth[k] - native.growth[k];
    rows.push(`| ${name} | ${mib(module.growth[k])} | ${mib(native.growth[k])} | ${mib(over)} | ≤ +10 MiB ${over <= SLACK_BYTES ? "✓" : "✗"} |`);
  }
  const b = (x) => Math.round(x) || 0; // no "-0"
  rows.push(`| per POST: backing / heap | ${b(module.perPost.backing)} / ${b(module.perPost.heap)} B | ${b(native.perPost.backing)} / ${b(native.perPost.heap)} B | | |`);
  rows.push(`| wasm memory: warm → end | ${mib(module.samples[1].wasm)} → ${mib(module.samples.at(-1).wasm)} | — | | |`);
  rows.push(`| JS values held by Go: warm → end | ${module.samples[1].goRefs} → ${module.samples.at(-1).goRefs} | — | | |`);
  return rows.join("\n");
}

