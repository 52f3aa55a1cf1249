// The in-page runner of the fetch contract suite (a classic script, loaded
// after the module by the fixture page). It builds each case's inputs fresh
// for every run, calls native fetch and gatewayCircuit.fetch with them, and
// returns what a caller can observe, as plain JSON. The test (in Node) only
// calls window.contract.run / .scenario through page.evaluate, so any engine
// driver that can evaluate an async function can run it.

(() => {
  const nativeFetch = window.fetch.bind(window);
  const gc = window.gatewayCircuit;
  const O1 = location.origin;
  const O2 = document.documentElement.dataset.origin2;
  const enc = new TextEncoder();
  const problems = [];
  addEventListener("unhandledrejection", (e) => problems.push(`unhandledrejection: ${describe(e.reason)}`));
  addEventListener("error", (e) => problems.push(`error: ${e.message}`));
  document.cookie = "sid=contract-cookie; path=/";

  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const describe = (e) => (e && e.stack) || String(e);
  const token = (id, side) => `~${id}~${side}~`;
  const fill = (s, tok) => s.replaceAll("{T}", tok).replaceAll("{O1}", O1).replaceAll("{O2}", O2);

  function bytes(n) {
    const b = new Uint8Array(n);
    for (let i = 0; i < n; i++) b[i] = (i * 7 + 3) & 255;
    return b;
  }

  // Sets a flag when the object registered with it is collected.
  const finalized = new FinalizationRegistry((flag) => (flag.seen = true));
  const GC_LIMIT_MS = 8000;

  /**
   * Allocates garbage until the engine has collected an object made for the
   * purpose, at most GC_LIMIT_MS: true once it has. The ground truth is the
   * engine's own: a FinalizationRegistry's callback for one object, or a
   * cleared WeakRef to another (WebKit has cleared one before calling the
   * callback). Two objects: Firefox does not collect an object a WeakRef
   * points to while the page only allocates (none in 8 s, 5 times of 5).
   */
  async function collectGarbage() {
    const flag = { seen: false };
    finalized.register({ probe: 1 }, flag);
    const ref = new WeakRef({ probe: 2 });
    const t0 = performance.now();
    while (performance.now() - t0 < GC_LIMIT_MS) {
      new ArrayBuffer(8 << 20);
      new ArrayBuffer(8 << 20);
      await sleep(0);
      if (flag.seen || ref.deref() === undefined) return true;
    }
    return false;
  }

  async function sha(buf) {
    const d = new Uint8Array(await crypto.subtle.digest("SHA-256", buf));
    return Array.from(d.slice(0, 10), (x) => x.toString(16).padStart(2, "0")).join("");
  }

  /** A long string from {long: n, fill}: specs stay small over the wire. */
  const text = (v) => (v && typeof v === "object" && "long" in v ? (v.fill ?? "x").repeat(v.long) : v);

  function makeBody(b) {
    switch (b.kind) {
      case "string":
        return text(b.text);
      case "blob":
        return new Blob([text(b.text)], b.type ? { type: b.type } : {});
      case "formdata": {
        const f = new FormData();
        f.append("a", "1");
        f.append("b", "two words & more");
        f.append("file", new Blob(["file-bytes"], { type: "text/plain" }), "f.txt");
        return f;
      }
      case "params":
        return new URLSearchParams(b.entries);
      case "arraybuffer":
        return bytes(b.n).buffer;
      case "uint8":
        return bytes(b.n);
      case "subarray":
        return bytes(b.n + 8).subarray(4, 4 + b.n);
      case "dataview":
        return new DataView(bytes(b.n).buffer);
      case "stream":
        return new ReadableStream({
          start(c) {
            c.enqueue(enc.encode("chunk-1;"));
            c.enqueue(enc.encode("chunk-2"));
            c.close();
          },
        });
      default:
        throw new Error(`unknown body ${b.kind}`);
    }
  }

  function makeHeaders(h) {
    const entries = h.entries.map(([k, v]) => [k, text(v)]);
    if (h.form === "array") return entries;
    if (h.form === "Headers") {
      const x = new Headers();
      for (const [k, v] of entries) x.append(k, v);
      return x;
    }
    return Object.fromEntries(entries);
  }

  function makeReason(kind) {
    if (kind === "error") return new Error("bye");
    if (kind === "string") return "bye";
    return undefined; // the default AbortError
  }

  /** Odd inputs that a fetch must turn into a rejected promise, never a throw. */
  const BAD = {
    headerNewline: () => [{ headers: { a: "b\nc" } }],
    headerNumber: () => [{ headers: 5 }],
    headerNonLatin1: () => [{ headers: { a: "한" } }],
    headerBadName: () => [{ headers: { "a b": "1" } }],
    headerThrowingToString: () => [{ headers: { a: { toString: () => { throw new Error("header toString"); } } } }],
    inputThrowingToString: () => [undefined, { toString: () => { throw new Error("input toString"); } }],
    methodBad: () => [{ method: "BAD METHOD" }],
    methodForbidden: () => [{ method: "CONNECT" }],
    methodThrowingToString: () => [{ method: { toString: () => { throw new Error("method toString"); } } }],
    getWithBody: () => [{ method: "GET", body: "x" }],
    headWithBody: () => [{ method: "HEAD", body: "x" }],
    streamWithoutDuplex: () => [{ method: "POST", body: new ReadableStream() }],
    modeNavigate: () => [{ mode: "navigate" }],
    credentialsBogus: () => [{ credentials: "bogus" }],
    priorityBogus: () => [{ priority: "urgent" }],
    signalNotASignal: () => [{ signal: "nope" }],
    windowNotNull: () => [{ window: {} }],
    initNumber: () => [5],
    // Not bad: an init whose members fetch reads through its prototype (Object.create, a class's getters).
    initInherited: () => [Object.create({ method: "POST", body: "from the prototype" })],
    initGetters: () => [new (class { get method() { return "PUT"; } get body() { return "from a getter"; } })()],
    referrerBad: () => [{ referrer: "http://[::1" }],
    usedRequest: () => {
      const r = new Request(`${O1}/in/used`, { method: "POST", body: "x" });
      r.text();
      return [undefined, r];
    },
  };

  /** Builds one call: [input, init or undefined, signal, start the abort timer]. */
  function build(c, tok) {
    const url = fill(c.url, tok);
    let init = {};
    for (const k of ["method", "mode", "credentials", "redirect", "cache", "referrer", "referrerPolicy", "priority", "keepalive", "integrity", "duplex"]) {
      if (c[k] !== undefined) init[k] = c[k];
    }
    if (c.headers) init.headers = makeHeaders(c.headers);
    if (c.body) init.body = makeBody(c.body);
    let signal;
    let start = () => {};
    let afterHeaders = () => {};
    // When the call started, its headers came, its abort fired and it ended (ms, for the report); gc: see collectGarbage.
    const marks = { t0: 0, gc: undefined };
    if (c.signal) {
      const s = c.signal;
      if (s.kind === "pre") {
        const ac = new AbortController();
        ac.abort(makeReason(s.reason));
        signal = ac.signal;
      } else if (s.kind === "timeout") {
        signal = AbortSignal.timeout(s.ms);
      } else {
        const ac = new AbortController();
        signal = ac.signal;
        const abort = () => {
          marks.abort = Math.round(performance.now() - marks.t0);
          ac.abort(makeReason(s.reason));
        };
        start = () => setTimeout(abort, s.ms);
        // gc: the timer starts once the engine has been seen collecting garbage, so that a collection comes between the call and its abort.
        if (s.gc) {
          const timer = start;
          start = () => void collectGarbage().then((seen) => ((marks.gc = seen), timer()));
        }
        // "inBody": the timer starts when the answer's headers are in.
        if (s.kind === "inBody") [start, afterHeaders] = [() => {}, start];
      }
      init.signal = signal;
    }
    let input = url;
    if (c.bad) {
      const [override, badInput] = BAD[c.bad]();
      if (badInput !== undefined) input = badInput;
      const plain = typeof override === "object" && Object.getPrototypeOf(override) === Object.prototype;
      init = override === undefined ? init : plain ? { ...init, ...override } : override;
      if (c.bad === "usedRequest") init = undefined;
    } else if (c.input === "URL") {
      input = new URL(url, location.href);
    } else if (c.input === "Request") {
      input = new Request(url, init);
      init = undefined;
    }
    if (init && typeof init === "object" && Object.getPrototypeOf(init) === Object.prototype && Object.keys(init).length === 0) init = undefined;
    return { input, init, signal, start, afterHeaders, marks, drop: c.drop === true };
  }

  function errInfo(e, signal) {
    const out = {
      errName: e instanceof Error || e instanceof DOMException ? e.name : typeof e,
      errMessage: e && typeof e === "object" && "message" in e ? String(e.message) : String(e),
    };
    if (signal) out.isReason = e === signal.reason;
    return out;
  }

  /** One call through fetchFn, and everything its caller can observe. */
  function observe(fetchFn, c, tok) {
    return call(fetchFn, build(c, tok));
  }

  /**
   * The arguments of the calls under way. WebKit's own fetch reaches a
   * Request's signal through weak references only: once nothing holds the
   * Request and the garbage collector has taken it, an abort of that signal
   * no longer stops the download, which runs to its end (WebKitGTK 2.50;
   * Chromium and Firefox abort it). The runner holds each call's input and
   * init until the call is over, so that whether a collection ran does not
   * decide what native fetch does; a case with `drop` lets go of them at once.
   */
  const held = new Set();

  /**
   * Calls fetchFn with a built call; a synchronous throw is observed as such.
   * Not an async function: its frame would hold input and init until the call is over.
   */
  function call(fetchFn, { input, init, signal, start, afterHeaders, marks = { t0: 0 }, drop = false }) {
    let p;
    marks.t0 = performance.now();
    try {
      p = init === undefined ? fetchFn(input) : fetchFn(input, init);
    } catch (e) {
      return Promise.resolve({ threw: true, ...errInfo(e, signal) });
    }
    start();
    const settled = settle(p, signal, afterHeaders, marks);
    if (drop) return settled;
    const args = [input, init];
    held.add(args);
    return settled.finally(() => held.delete(args));
  }

  async function settle(p, signal, afterHeaders = () => {}, marks = null) {
    const r = await settleCall(p, signal, afterHeaders, marks);
    // Had the abort come by the time the call was over (body read or failed)?
    if (signal) r.abortSeen = signal.aborted;
    if (marks) {
      const { t0, gc, ...at } = marks;
      r.marks = { ...at, end: Math.round(performance.now() - t0) };
      if (gc !== undefined) r.gc = gc;
    }
    return r;
  }

  async function settleCall(p, signal, afterHeaders, marks) {
    const r = { threw: false, isPromise: p instanceof Promise };
    let res;
    try {
      res = await p;
    } catch (e) {
      return { ...r, outcome: "reject", ...errInfo(e, signal) };
    }
    if (marks) marks.headers = Math.round(performance.now() - marks.t0);
    afterHeaders();
    Object.assign(r, {
      outcome: "resolve",
      status: res.status,
      statusText: res.statusText,
      type: res.type,
      redirected: res.redirected,
      url: res.url,
      headers: [...res.headers].filter(([k]) => k !== "date"),
    });
    try {
      const buf = await res.arrayBuffer();
      if (marks) marks.body = Math.round(performance.now() - marks.t0);
      r.body = { len: buf.byteLength, sha: await sha(buf) };
    } catch (e) {
      r.body = { error: errInfo(e, signal) };
    }
    return r;
  }

  // ?self=1: the "module" side is native fetch too, to check the suite itself
  // (every difference it then reports is noise of the suite's own).
  const self = new URLSearchParams(location.search).get("self") === "1";
  const moduleFetch = self ? nativeFetch : (...args) => gc.fetch(...args);
  const circuitNow = () => {
    const s = gc.read();
    return s ? s.httpStatus : null;
  };

  async function pool(items, size, fn) {
    let next = 0;
    const worker = async () => {
      while (next < items.length) await fn(items[next++]);
    };
    await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
  }

  /**
   * Runs a batch: cases that cannot change the module's state in parallel
   * (phase 0), then those that can arm the circuit one by one with clear()
   * around each (phase 1), then the 429s in parallel (phase 2: each pauses
   * only its own scope entry).
   */
  async function run(cases, parallel = 4) {
    const results = {};
    // A timed abort that one side saw before its call was over and the other
    // only after is two different experiments, not a difference: a timer that
    // fires a second late on a loaded machine (WebKit's did, in CI). The pair
    // runs again, with fresh tokens, at most twice more.
    const both = async (c) => {
      for (let attempt = 0; ; attempt++) {
        const again = attempt ? String(attempt) : "";
        const n = await observe(nativeFetch, c, token(c.id, `n${again}`));
        const m = await observe(moduleFetch, c, token(c.id, `m${again}`));
        m.circuit = circuitNow();
        results[c.id] = { n, m, again };
        if (n.abortSeen === m.abortSeen || attempt === 2) return;
      }
    };
    await pool(cases.filter((c) => !c.phase), parallel, both);
    for (const c of cases.filter((c) => c.phase === 1)) {
      gc.clear();
      await both(c);
      gc.clear();
    }
    await pool(cases.filter((c) => c.phase === 2), parallel, both);
    if (gc.status !== "ready") problems.push(`the module is ${gc.status}: ${describe(gc.error)}`);
    return { results, problems: problems.splice(0) };
  }

  /**
   * Concurrent scenarios: fn(fetch, url) makes the calls and returns what each
   * caller observed. url(path) puts this run's token into a path template.
   */
  const scenarios = {
    // Callers of one URL started together, each with its own options.
    async together(f, url, spec) {
      return Promise.all(spec.callers.map((c) => call(f, build({ url: spec.url, ...c }, url.tok))));
    },

    // abort() right after the call (React StrictMode's double mount), or after
    // `after` ms (TanStack's cancel-then-refetch), then the same URL again.
    async abortThenRefetch(f, url, spec) {
      const u = fill(spec.url, url.tok);
      const ac = new AbortController();
      const first = call(f, { input: u, init: { signal: ac.signal }, signal: ac.signal, start() {} });
      if (spec.after) await sleep(spec.after);
      ac.abort();
      const second = call(f, { input: u, init: undefined, start() {} });
      return [await first, await second];
    },

    // A signal that is already aborted: every method, many times.
    async preAborted(f, url, spec) {
      const out = [];
      for (let i = 0; i < spec.rounds; i++) {
        for (const c of spec.callers) out.push(call(f, build({ ...c, url: spec.url, signal: { kind: "pre" } }, url.tok)));
      }
      return Promise.all(out);
    },

    // Each caller reads the first chunk of its stream, then cancels it (all
    // at once), then `then` is fetched once. A cancel or a fetch that has not
    // settled after `hangMs` is recorded as hung: the test does not wait on
    // the engine for ever (WebKit's cancel of a tee branch never settles).
    async readThenCancel(f, url, spec) {
      const hangMs = spec.hangMs ?? 5000;
      const within = (p) => Promise.race([p, sleep(hangMs).then(() => "hung")]);
      const one = async (c) => {
        let res;
        try {
          res = await within(f(fill(c.url ?? spec.url, url.tok)));
        } catch (e) {
          return { outcome: "reject", ...errInfo(e) };
        }
        if (res === "hung") return { outcome: "hung" };
        const reader = res.body.getReader();
        const first = await within(reader.read());
        const cancel = await within(reader.cancel().then(() => "resolved", (e) => `rejected: ${e?.name}`));
        return { outcome: "resolve", status: res.status, firstChunk: first !== "hung" && !first.done && first.value.byteLength > 0, cancel };
      };
      const callers = await Promise.all(spec.callers.map(one));
      if (!spec.then) return callers;
      const next = await within(f(fill(spec.then, url.tok)).then((r) => r.text().then(() => r.status), (e) => e.name));
      return [...callers, { outcome: next === "hung" ? "hung" : "resolve", status: next }];
    },

    // The same URL one after the other.
    async sequence(f, url, spec) {
      const out = [];
      for (const c of spec.callers) out.push(await call(f, build({ url: spec.url, ...c }, url.tok)));
      return out;
    },
  };

  async function scenario(name, side, id, spec) {
    const url = { tok: token(id, side) };
    const f = side === "n" ? nativeFetch : moduleFetch;
    gc.clear();
    const before = gc.metrics();
    const callers = await scenarios[name](f, url, spec);
    const after = gc.metrics();
    if (gc.status !== "ready") problems.push(`the module is ${gc.status}: ${describe(gc.error)}`);
    return { callers, circuit: circuitNow(), network: after.network - before.network, problems: problems.splice(0) };
  }

  /**
   * The sentinel sent after a run: one more GET to each origin, through the
   * fetch that side used (native, or the module's in-scope path), so that
   * anything that side sent before it is ahead of it. The test reads the
   * server's log once both have arrived (server.sentinel). A circuit the run
   * left armed (already recorded as a difference) is cleared first, or the
   * module would answer the sentinel itself. Returns their ids at once; what each got
   * is kept in sentinels[id] for the test's message.
   */
  const sentinels = {};
  function sentinel(side, id) {
    const f = side === "n" ? nativeFetch : moduleFetch;
    if (side === "m" && circuitNow() !== null) gc.clear();
    return [O1, O2].map((origin, i) => {
      const tok = token(`sentinel-${id}-o${i + 1}`, side);
      const key = `sentinel-${id}-o${i + 1}~${side}`;
      sentinels[key] = "pending";
      f(`${origin}/in/${tok}/echo?cors=1`).then(
        (r) => (sentinels[key] = `${r.status}${r.headers.get("x-gateway-circuit") ? ` (x-gateway-circuit: ${r.headers.get("x-gateway-circuit")})` : ""}`),
        (e) => (sentinels[key] = `rejected: ${describe(e)}`),
      );
      return key;
    });
  }

  window.contract = { ready: false, error: null, run, scenario, sentinel, sentinels };
  gc.ready.then(
    () => (window.contract.ready = true),
    (e) => (window.contract.error = describe(e)),
  );
})();
