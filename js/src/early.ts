// window.gatewayCircuit before the facade's file has run (script.ts says why
// it is a second file). Until it runs, this stands in, reading the
// attributes and storage by the table Go publishes (config.ts, gate.ts,
// storage.ts over policy.gen.ts), as the facade does:
//
// - fetch: the stored state decides, by the gate's rule (gate.ts decide). A
//   call out of scope, or a GET or HEAD that nothing stored blocks (no
//   circuit, no half-open, no pause of its service), goes out at once, and
//   the facade learns how it went when it arrives (an in-scope trip status
//   then arms the stored circuit at once by the early rule, config.ts
//   EarlyRule, for Go to judge again). Any other call (an in-scope mutation,
//   or one the stored state would block) waits for the facade, which
//   decides it as it decides every call.
// - read(), blocking() and subscribe() show the stored state (clamped as Go
//   clamps it; a subscriber hears of it as in every phase, state.ts restore)
//   and what arm() and clear() change; arm() writes the circuit as
//   Go's Arm does; clear() closes the stored circuit, and the facade ends the
//   pauses the module chose as it takes over. The rest waits for
//   the facade or answers as an idle module.
//
// When the facade arrives it takes over (adopt) behind the one API object
// (api.ts). If its file cannot load, or has not run within FACADE_WAIT_MS,
// calls go to the plain fetch through the stored state (a stored circuit or
// pause still answers with the synthetic 503; status "fallback", one
// console.warn) and the page keeps working.

import { type Decider, createApi } from "./api.js";
import { noMetrics } from "./metrics.gen.js";
import { type DataAttributes, readCircuitTimes } from "./config.js";
import { armed, blockingAt, decide, readStored } from "./gate.js";
import { backoff } from "./query.js";
import { isRequest, methodOf } from "./request.js";
import { synthetic } from "./responses.js";
import { scopePrefixes } from "./scope.js";
import { restore, tell } from "./state.js";
import { type StorageLike, type StoredCircuit, toStored, writeRaw } from "./storage.js";
import type { Blocking, GatewayCircuit, Listener } from "./types.js";

/**
 * How long a call waits for the facade's file at most (it is fetched at once,
 * at high priority; a few KB). Past it the file counts as failed.
 */
export const FACADE_WAIT_MS = 3000;

/** A call sent before the facade ran: what was asked, and its answer. */
export interface EarlyCall {
  input: RequestInfo | URL;
  init: RequestInit | undefined;
  answer: Promise<Response>;
  /** When it was sent (the stand-in's clock). */
  sentAt: number;
  /** When the answer came (unset until then): a pause the server asked for counts from there, not from when the facade ran. */
  answeredAt?: number;
}

/** What the facade takes over: the calls already sent (it learns how they went), and what to do again. */
export interface Handover {
  sent: EarlyCall[];
  clear: boolean;
  forget: boolean;
}

export interface Early {
  /** The one API object (window.gatewayCircuit): the stand-in decides behind it, then the facade. */
  api: GatewayCircuit;
  /** The facade has run: it decides behind the API from now on; returns what it must take over, or null when too late (the stand-in failed over). */
  adopt(facade: Decider): Handover | null;
  /** The facade's file did not load or run (nothing, once it took over): the plain fetch from now on. */
  fail(why: string): void;
}

export function createEarly(nativeFetch: typeof fetch, storage: StorageLike | null, data: DataAttributes, base: string, now = Date.now): Early {
  let failed: Error | null = null;
  let arrive: (f: Decider | null) => void = () => {};
  const arrived = new Promise<Decider | null>((r) => (arrive = r));
  const listeners = new Map<Listener, () => void>();
  let version = 0; // bumped by every write: a listener told of it needs no restore
  const handover: Handover = { sent: [], clear: false, forget: false };
  const counts = noMetrics();
  const rule = readCircuitTimes(data);
  const scope = scopePrefixes(data.scope, base);
  const blocking = (at = now()): Blocking => {
    const s = readStored(storage, at, rule.maxTtlMs);
    // After clear() ("try again") the pauses the module chose are over (in this page; the facade ends them in storage).
    if (handover.clear) s.pauses = s.pauses.filter((p) => p.serverAsked);
    return blockingAt(s, at);
  };

  /** The facade, or null once its file failed: then the plain fetch. */
  const later = <T>(f: (g: Decider) => T | Promise<T>, plain: () => T | Promise<T>) =>
    arrived.then((g) => (g ? f(g) : plain()));

  /** Stores the circuit (null clears it) and tells the subscribers. */
  function write(s: StoredCircuit | null) {
    writeRaw(storage, s && toStored(s));
    version++;
    const b = blocking();
    for (const l of [...listeners.keys()]) tell(l, b.circuit && { ...b.circuit }, b);
  }

  /** What the stored state says of a call to `input` at `at` (gate.ts decide). */
  function decideAt(input: RequestInfo | URL, at: number) {
    let url = "";
    try {
      url = new URL(isRequest(input) ? input.url : String(input), base).href;
    } catch {
      // fetch rejects it with its own error
    }
    return decide(url, scope, blocking(at));
  }

  /** Without the facade: the plain fetch, but a stored circuit or pause still answers in scope, as in the facade's fallback. */
  function plainFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const at = now();
    const d = decideAt(input, at);
    counts.calls++;
    if (d.kind === "open" || d.kind === "cooldown") return counts.answeredLocally++, Promise.resolve(synthetic(d.kind, d.state.until, d.state.httpStatus, at));
    counts.network++;
    return nativeFetch(input, init);
  }

  function plainJSON(input: RequestInfo | URL, init?: RequestInit) {
    return plainFetch(input, init).then((res) => {
      if (!res.ok) throw new Error(`HTTP ${res.status} from ${res.url || "(synthetic)"}`);
      return res.text().then((t) => (t === "" ? null : JSON.parse(t)));
    });
  }

  const standIn: Decider = {
    fetch(input, init) {
      if (failed) return plainFetch(input, init);
      const m = methodOf(init, isRequest(input) ? input : null);
      const d = decideAt(input, now()).kind;
      if (d === "pass" || (d === "send" && (m === "GET" || m === "HEAD"))) {
        counts.calls++;
        counts.network++;
        const answer = nativeFetch(input, init);
        const call: EarlyCall = { input, init, answer, sentAt: now() };
        const came = () => void (call.answeredAt = now());
        answer.then(came, came);
        handover.sent.push(call);
        return answer;
      }
      return later((g) => g.fetch(input, init), () => plainFetch(input, init));
    },
    fetchJSON: <T>(input: RequestInfo | URL, init?: RequestInit) =>
      later((g) => g.fetchJSON<T>(input, init), () => plainJSON(input, init) as Promise<T>),
    read: () => blocking().circuit,
    blocking,
    arm(httpStatus, ttlMs) {
      const s = armed(rule, now(), httpStatus, ttlMs);
      write(s);
      return { until: s.until, httpStatus };
    },
    clear() {
      handover.clear = true;
      write(null);
    },
    forget() {
      handover.forget = true;
    },
    subscribe(listener) {
      if (typeof listener !== "function") throw new TypeError("gatewayCircuit.subscribe: listener must be a function");
      listeners.set(listener, () => {});
      restore(listener, blocking, () => listeners.has(listener), () => version);
      return () => {
        listeners.get(listener)?.();
        listeners.delete(listener);
      };
    },
    ready: arrived.then((g) => {
      if (!g) throw failed;
      return g.ready;
    }),
    get status() {
      return failed ? "fallback" : "loading";
    },
    get error() {
      return failed;
    },
    metrics: () => ({ ...counts }),
    diagnostics: () => ({ listeners: listeners.size }),
    retryDelay: backoff, // TanStack's own until the facade runs
    options: undefined, // the facade reads them
  };
  standIn.ready.catch(() => {}); // for those who await it
  let current = standIn;

  return {
    api: createApi(() => current),
    adopt(g) {
      if (failed) return null;
      current = g;
      for (const [l] of listeners) listeners.set(l, g.subscribe(l, true));
      arrive(g);
      // Handed over once: the facade learns from the calls, and this file keeps none of them.
      return { ...handover, sent: handover.sent.splice(0) };
    },
    fail(why) {
      if (current !== standIn || failed) return;
      failed = new Error(why);
      console.warn(`[gatewaycircuit] ${why}: falling back to the stored state`);
      arrive(null);
    },
  };
}
