// The facade: the decider behind the one API object (api.ts) once the
// facade's file has run, before Go and with it. It wires the jobs together
// and decides nothing itself:
//   request.ts    what a fetch call asks for (read without changing it)
//   gate.ts       the pre-ready gate: the stored state, honoured before Go runs
//   state.ts      the circuit's state and the subscribers
//   responses.ts  synthetic answers and kept copies
// and, in the engine's file, loaded later (env.start):
//   engine.ts     the calls into Go (abi.gen.ts declares them)
//   gopath.ts     the requests Go decides, with
//   flights.ts    callers sharing one network request; aborts
//   network.ts    the network step, carrying out Go's outcome
//   mutations.ts  idempotency keys
// The facade's file (facade-file.ts) bundles the facade without the engine's
// part; the tag's file (script.ts) holds only the stand-in (early.ts) that
// comes before it.

import { Flag, Quiet } from "./abi.gen.js";
import type { Decider } from "./api.js";
import { GO_COUNTED, JS_COUNTED, noMetrics } from "./metrics.gen.js";
import { type DataAttributes, type ResolvedOptions, attributesText, type readGoOptions } from "./config.js";
import { Deadlines, initWithin, timeoutOf, within } from "./deadline.js";
import { noop } from "./flights.js";
import type { Handover } from "./early.js";
import type { Engine } from "./engine.js";
import { Gate, armed, blockingAt, decide } from "./gate.js";
import type { Facade, GoPath } from "./gopath.js";
import { statusOf } from "./network.js";
import { createFetchJSON, createRetryDelay } from "./query.js";
import { type Described, ownInit, readCall } from "./request.js";
import { synthetic } from "./responses.js";
import { inScope } from "./scope.js";
import { StateMirror } from "./state.js";
import { KEYED_METHODS, LEDGER_KEY, SCOUT_KEY, TIMEOUT_STATUS } from "./policy.gen.js";
import { parked } from "./wait.js";
import { type CircuitState, type StorageLike, readPauses, readRaw, writeRaw } from "./storage.js";
import type { Metrics, ModuleStatus } from "./types.js";

export interface Environment {
  /** The fetch to guard; captured once, so patching window.fetch later cannot loop. */
  fetch: typeof fetch;
  storage: StorageLike | null;
  /** The base URL relative request URLs resolve against (document.baseURI). */
  baseUrl: () => string;
  now?: () => number;
  /** The page is a reload of the one before it (F5), by the browser's navigation timing: Go sends no scout then. */
  reload?: boolean;
  /** Starts the engine: loads the engine's file and the wasm (script.ts); tests pass a fake one. */
  start: (attributes: string) => Promise<Started>;
  /** A request waits for Go: the engine is loaded now, not once the page has loaded and is idle. */
  hurry?: () => void;
  /** What blocks requests changed here: the other instances sharing the storage are told (frames.ts). */
  changed?: () => void;
}

/** A running engine, Go's Options frame, and the code that only runs with Go (from the engine's file). */
export interface Started {
  engine: Engine;
  options: string;
  createGoPath: (engine: Engine, facade: Facade, o: Readonly<ResolvedOptions>, again: typeof fetch) => GoPath;
  readGoOptions: typeof readGoOptions;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
}

/** A message with the query strings of its URLs cut: they can carry secrets. */
export function withoutQueries(message: string): string {
  return message.replace(/(\bhttps?:\/\/[^\s?#]*|\/[^\s?#]*)\?(?:[^\s)#:]|:(?!\s))*/g, "$1?…");
}

/** How long a mutation made before the wasm runs waits for it. */
const HOLD_MS = 3000;

/** The decider while the module runs (the pre-ready gate, then Go), and what the facade's file asks of it. */
export interface Circuit extends Decider {
  /**
   * The stored state is read again: the page came back from the back/forward
   * cache (another page of the tab may have armed or cleared meanwhile), or
   * another instance sharing the storage changed it.
   */
  reload(): void;
  /**
   * What the stand-in hands over as this facade takes its place (early.ts): the calls it sent, counted and learnt
   * from like those sent before Go, and what it was asked to clear or forget, done here too.
   */
  takeOver(h: Handover): void;
}

/**
 * The facade over options `o` (the pre-ready reader's view of `data`, the
 * script tag's attributes, which Go reads again and owns once it runs).
 */
export function createCircuit(o: ResolvedOptions, env: Environment, data: DataAttributes = {}): Circuit {
  const { fetch: nativeFetch, storage } = env;
  const now = env.now ?? Date.now;
  let engine: Engine | null = null;
  let path: GoPath | null = null; // the Go path, while the engine runs
  let status: ModuleStatus = "loading";
  let lastError: Error | null = null;
  let options = freeze(o);
  let warnedHold = false;

  const mirror = new StateMirror(now, () => read(), env.changed);
  const gate = new Gate(storage, o.scope, o.maxTtlMs, now());
  /** The answers that came before Go ran, for Go to judge when it runs. */
  const early: ((e: Engine) => boolean)[] = [];
  syncFromGate();

  /** The mirror from what the gate read (before Go runs, and in fallback). */
  function syncFromGate() {
    const b = blockingAt(gate, now());
    mirror.set(b.circuit, b.halfOpen, b.pauses);
  }

  function reload() {
    gate.load(now());
    const r = call((e) => e.reload(now()));
    if (r !== null) call(syncFromEngine);
    else syncFromGate();
  }

  const core: Facade = {
    fetch: nativeFetch,
    now,
    call,
    sync,
    counts: noMetrics(), // the JS side's counters among them (JsCounts)
    idle: () => engine !== null && (engine.quiet() & Quiet.Idle) !== 0,
    uneventful: (st) => engine !== null && engine.uneventful(st),
    deadlines: new Deadlines(),
    timeoutOf: (init) => timeoutOf(init, options.timeoutMs),
    alive: () => engine !== null,
    baseUrl: env.baseUrl,
    passThrough(input, init) {
      core.counts.passedThrough++;
      return nativeFetch(input, init);
    },
    local<T>(answer: T): T {
      core.counts.answeredLocally++;
      return answer;
    },
  };

  function die(err: unknown) {
    if (status === "fallback") return;
    engine = null;
    status = "fallback";
    lastError = err instanceof Error ? err : new Error(String(err));
    console.warn(
      `[gatewaycircuit] the wasm is not running (${withoutQueries(lastError.message)}); the stored circuit is still honoured, but responses no longer arm it`,
    );
    // Whoever waits on the Go side's decisions goes again, through the gate.
    const p = path;
    path = null;
    p?.release();
  }

  function call<T>(f: (e: Engine) => T): T | null {
    const e = engine;
    if (!e) return null;
    try {
      return f(e);
    } catch (err) {
      die(err);
      return null;
    }
  }

  function syncFromEngine(e: Engine) {
    const t = now();
    const s = e.status();
    const u = e.until();
    // Go keeps the status while half-open: past `until` it is not armed.
    mirror.set(s && t < u ? { until: u, httpStatus: s } : null, s !== 0 && t >= u, readPauses(e.pauses(), t));
  }

  function sync(changed: boolean) {
    if (changed) call(syncFromEngine);
  }

  /** gatewayCircuit.fetch: counted once here, however often it is decided again (after a wait). */
  function publicFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    core.counts.calls++;
    return guardedFetch(input, ownInit(init));
  }

  function guardedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    if (path) {
      const viaGo = path.fetch(input, init);
      if (viaGo) return viaGo;
    }
    // A call fetch rejects, or with an aborted signal: nothing is decided.
    const req = readCall(input, init, env.baseUrl());
    return req ? gated(req, input, init) : core.passThrough(input, init);
  }

  /** The gate: loading, or the wasm is gone. */
  function gated(req: Described, input: RequestInfo | URL, init: RequestInit | undefined, mayHold = true): Promise<Response> {
    if (mirror.get() && !mirror.armed()) read();
    const d = decide(req.url, o.scope, blockingAt(gate, now(), mirror.get()));
    switch (d.kind) {
      case "pass":
        return core.passThrough(input, init);
      case "open":
        // The stored open period may still send its scout (Go decides which key): wait for Go. Not after F5:
        // Go sends no scout on a reload, so the answer is this one, and waiting for Go only delays it.
        if (mayHold && status === "loading" && !env.reload && readRaw(storage, SCOUT_KEY) !== null) return holdUntilReady(req, input, init, "scout");
        core.counts.shortCircuited++;
        return core.local(Promise.resolve(synthetic("open", d.state.until, d.state.httpStatus, now())));
      case "cooldown":
        core.counts.cooledDown++;
        return core.local(Promise.resolve(synthetic("cooldown", d.state.until, d.state.httpStatus, now())));
    }
    // Until Go runs, some requests wait for it (bounded): a mutation, whose
    // Idempotency-Key must be the one a retry after F5 reuses (only Go's
    // ledger knows it), and, half-open, every request, so that Go sends one
    // probe and not every query of the page.
    if (status === "loading" && (d.kind === "hold" || (o.idempotency && KEYED_METHODS.includes(req.method)))) {
      return holdUntilReady(req, input, init, d.kind === "hold" ? "probe" : "key");
    }
    return direct(req, input, init);
  }

  /** An in-scope request sent as it is (Go is not deciding), within its deadline; Go learns how it went once it runs. */
  function direct(req: Described, input: RequestInfo | URL, init: RequestInit | undefined): Promise<Response> {
    core.counts.network++;
    const sentAt = now();
    const deadline = core.deadlines.start(core.timeoutOf(init), req.signal);
    const p = deadline ? within(nativeFetch(input, initWithin(input, init, deadline.signal)), deadline) : nativeFetch(input, init);
    if (status === "loading") learnLater(req, p, sentAt, () => deadline?.timedOut ?? false);
    return p;
  }

  /**
   * How a request sent (at sentAt) before Go ran went. Until Go runs, a trip
   * status arms the stored circuit at once by the early rule (so that F5 is
   * blocked already); Go, when it runs, judges every such answer with its
   * whole rule. One past its deadline failed as a 504.
   */
  function learnLater(req: Described, p: Promise<Response>, sentAt: number, timedOut: () => boolean, answeredAt: () => number | undefined = () => undefined) {
    const learn = (st: number, ra: string, finalUrl: string) => {
      const at = answeredAt() || now();
      const observe = (e: Engine) => e.observe(at, sentAt, at, st, req.method, req.url, ra, finalUrl);
      if (engine) sync(call(observe) ?? false);
      else if (status === "loading") {
        early.push(observe);
        if (gate.armEarly(o, req.method, finalUrl || req.url, st, at)) syncFromGate();
      }
    };
    p.then(
      (res) => learn(statusOf(res), res.headers.get("retry-after") ?? "", res.redirected ? res.url : ""),
      () => learn(timedOut() ? TIMEOUT_STATUS : 0, "", ""),
    );
  }

  /**
   * Go's judgement of the answers that came before it: the circuit the early
   * rule stored, if still there, is withdrawn, and the answers are observed in
   * order (at their times), so it stays armed only when Go's rule arms it.
   */
  function judgeEarly(e: Engine) {
    if (gate.provisional !== null && readRaw(storage) === gate.provisional) {
      writeRaw(storage, null);
      e.reload(now());
    }
    gate.provisional = null;
    for (const observe of early.splice(0)) observe(e);
  }

  function takeOver({ sent, clear, forget }: Handover) {
    if (clear) {
      // The stand-in's clear() closed the stored circuit (an arm() after it stays); the pauses the module chose end here.
      gate.clearChosen();
      syncFromGate();
    }
    if (forget) forgetAll();
    for (const call of sent) {
      core.counts.calls++;
      const req = readCall(call.input, call.init, env.baseUrl());
      if (!req || !inScope(req.url, o.scope)) {
        core.counts.passedThrough++;
        continue;
      }
      core.counts.network++;
      // The stand-in sent it as it was, with no deadline of the module's: its real answer, whenever it comes, is
      // learnt, as sent when it was sent.
      learnLater(req, call.answer, call.sentAt, () => false, () => call.answeredAt);
    }
  }

  /** Holds a request until the wasm runs (at most HOLD_MS), then sends it through Go, or as the gate or as it is. */
  function holdUntilReady(req: Described, input: RequestInfo | URL, init: RequestInit | undefined, why: "probe" | "key" | "scout"): Promise<Response> {
    env.hurry?.();
    return parked(req.signal, ready, HOLD_MS).then(() => {
      if (status === "ready") return guardedFetch(input, init);
      if (why === "scout") return gated(req, input, init, false);
      if (!warnedHold) {
        warnedHold = true;
        console.warn(
          `[gatewaycircuit] the wasm was not ready within ${HOLD_MS} ms: ${why === "probe" ? "requests were sent without a half-open probe" : "a mutation was sent without an Idempotency-Key"}`,
        );
      }
      return direct(req, input, init);
    });
  }

  function read(): CircuitState | null {
    const r = call((e) => e.read(now()));
    if (r !== null) sync((r & Flag.Changed) !== 0);
    else if (mirror.get() && !mirror.armed()) {
      gate.load(now()); // read as Go reads it: half-open now, or closed and removed
      syncFromGate();
    }
    else if (mirror.blocking().pauses.length) syncFromGate(); // a pause ended
    const s = mirror.get();
    return s && { ...s };
  }

  function arm(httpStatus: number, ttlMs?: number): CircuitState {
    const ttl = ttlMs === undefined ? 0 : Math.floor(ttlMs); // 0 asks Go for the policy's TTL
    const r = call((e) => e.arm(now(), httpStatus, ttl));
    if (r !== null && r < 0) throw new RangeError(`gatewayCircuit.arm: ${engine?.message() ?? "rejected"}`);
    if (r !== null) sync((r & Flag.Changed) !== 0);
    else {
      gate.write(armed(o, now(), httpStatus, ttl));
      syncFromGate();
    }
    return { ...mirror.get()! };
  }

  function clear(): void {
    const r = call((e) => e.clear());
    if (r !== null) sync((r & Flag.Changed) !== 0);
    else {
      early.length = 0; // "try again" before Go ran: the answers before it would arm Go again
      gate.write(null);
      gate.clearChosen();
      syncFromGate();
    }
  }

  /** Logout. Before Go runs, and in fallback, its ledger goes from storage: Go never reads the previous user's pending keys. */
  function forgetAll() {
    if (path) path.forget(now());
    else writeRaw(storage, null, LEDGER_KEY);
  }

  function blocking() {
    if (!engine) syncFromGate(); // the gate's view ages: pauses end
    return mirror.blocking();
  }

  function metrics(): Metrics {
    const m = noMetrics();
    for (const [name, i] of GO_COUNTED) m[name] = call((e) => e.metric(i)) ?? 0;
    for (const name of JS_COUNTED) m[name] += core.counts[name]; // what JS carries out is counted where it happens
    return m;
  }

  const ready: Promise<void> = env.start(attributesText(data, o, originOf(env.baseUrl()), env.reload)).then(
    ({ engine: e, options: frame, createGoPath, readGoOptions }) => {
      const go = readGoOptions(frame, o);
      options = freeze(go.options);
      for (const w of go.warnings) console.warn(`[gatewaycircuit] ${w}`);
      engine = e;
      path = createGoPath(e, core, o, guardedFetch);
      status = "ready";
      e.exited.catch(die);
      call(judgeEarly);
      if (engine) syncFromEngine(e);
    },
    (err: unknown) => {
      die(err);
      throw lastError;
    },
  );
  ready.catch(noop); // a rejection is for those who await it, not an unhandledrejection

  return {
    fetch: publicFetch,
    read,
    arm,
    clear,
    subscribe: (l, told) => mirror.subscribe(l, told),
    blocking,
    forget: forgetAll,
    ready,
    get status() {
      return status;
    },
    get error() {
      return lastError;
    },
    metrics,
    diagnostics: () => ({
      wasmMemoryBytes: call((e) => e.memoryBytes()) ?? 0,
      listeners: mirror.size,
      flights: path?.flights ?? 0,
      staleCopies: path?.copies ?? 0,
    }),
    fetchJSON: createFetchJSON(publicFetch),
    retryDelay: createRetryDelay(blocking, () => options.scope, now),
    get options() {
      return options;
    },
    reload,
    takeOver,
  };
}

function freeze(o: ResolvedOptions): Readonly<ResolvedOptions> {
  return Object.freeze({ ...o, scope: Object.freeze([...o.scope]) as string[], tripStatuses: Object.freeze([...o.tripStatuses]) as number[] });
}
