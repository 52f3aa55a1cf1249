// The soak, run in a page that has the module (e2e/soak.mjs injects it into
// /fault/page). window.soak({n, seed, concurrency}) sends n requests through
// gatewayCircuit.fetch to /fault/soak/<mode>/<id>, the mode of each taken
// from a seeded PRNG in runs of 1-40 (ok 3/10, slow 2/10, 502, 503,
// 504 1/10 each, 429 2/10), so a
// run is reproducible from its seed. It records, per call, when it started
// and how it settled, the armed windows reported by subscribe, and memory.

(() => {
  // mulberry32: small, seeded, good enough to pick modes.
  const prng = (seed) => () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  // Weighted so the network gets traffic between failures: ok and slow
  // make half the runs (the circuit is closed only after a healthy answer).
  const MODES = ["ok", "ok", "ok", "slow", "slow", "502", "503", "504", "429", "429"];
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const HUNG_MS = 15_000;

  /** JS values Go holds (wasm_exec's table minus its free list); -1 without the spy. */
  const goRefs = () => {
    const go = window.__go?.at(-1);
    return go ? go._values.length - go._idPool.length : -1;
  };
  const memory = () => {
    if (typeof gc === "function") {
      gc();
      gc();
    }
    return {
      wasmBytes: gatewayCircuit.diagnostics?.().wasmMemoryBytes ?? -1,
      heapBytes: performance.memory?.usedJSHeapSize ?? -1,
      goRefs: goRefs(),
      listeners: gatewayCircuit.diagnostics?.().listeners ?? -1,
    };
  };

  window.soak = async ({ n, seed, concurrency }) => {
    const rand = prng(seed);
    const plan = [];
    const runs = {};
    while (plan.length < n) {
      const mode = MODES[Math.floor(rand() * MODES.length)];
      runs[mode] = (runs[mode] ?? 0) + 1;
      for (let len = 1 + Math.floor(rand() * 40); len > 0 && plan.length < n; len--) plan.push(mode);
    }
    // 5-20 ms between calls per worker: a synthetic 503 takes ~0.1 ms, and
  // without a pause one armed window would swallow the whole plan.
  const gaps = plan.map(() => 5 + Math.floor(rand() * 16));

    const windows = [];
    let open = null;
    // What the circuit was before a window opened: "closed", or "halfOpen"
    // (then the window is a failed probe's, which has no scout).
    let was = "closed";
    // The module's word on which calls were scouts: its counter, read as a
    // window opens and ends (the scouts it sent in the window).
    const scouts = () => gatewayCircuit.metrics().scouts;
    const close = (t, more) => windows.push({ ...open, to: Math.min(t, open.until), scouts: scouts() - open.scouts, ...more });
    const unsubscribe = gatewayCircuit.subscribe((s, blocking) => {
      const t = Date.now();
      // A window is one open period: a new until while armed is a new arm.
      if (s && t < s.until && open?.until === s.until) return;
      if (open) {
        close(t);
        open = null;
      }
      if (s && t < s.until) open = { from: t, until: s.until, httpStatus: s.httpStatus, after: was, scouts: scouts() };
      was = blocking.halfOpen ? "halfOpen" : s ? "open" : "closed";
    });

    const calls = new Array(n);
    let next = 0;
    const samples = [];
    const t0 = Date.now();
    const one = async (i) => {
      const t = Date.now();
      let timer;
      const hung = new Promise((r) => (timer = setTimeout(() => r({ t, hung: true }), HUNG_MS)));
      const settled = (async () => {
        try {
          const res = await gatewayCircuit.fetch(`/fault/soak/${plan[i]}/${i}`);
          await res.arrayBuffer();
          // The marker says which policy answered: open, cooldown, negative
          // (none reached the network), stale (it did, and failed).
          return { t, s: res.status, marker: res.headers.get("x-gateway-circuit") };
        } catch (e) {
          return { t, err: String(e && e.name) };
        }
      })();
      calls[i] = await Promise.race([settled, hung]);
      clearTimeout(timer);
      calls[i].end = Date.now();
    };
    const worker = async () => {
      while (next < n) {
        const i = next++;
        await sleep(gaps[i]);
        await one(i);
        if (i % Math.max(1, Math.floor(n / 10)) === 0) samples.push({ i, ...memory() });
      }
    };
    const before = memory();
    await Promise.all(Array.from({ length: concurrency }, worker));
    const ms = Date.now() - t0;
    await sleep(50);
    if (open) close(Date.now(), { stillOpen: true });
    unsubscribe();
    gatewayCircuit.clear();
    const afterRun = memory();
    return { plan, runs, calls, windows, before, after: afterRun, samples, ms, status: gatewayCircuit.status };
  };
})();
