// The requests Go decides, once the wasm runs. It ships in the engine's file
// with the wasm loader; the facade (circuit.ts) hands a request here while Go runs.

import { Kind, Quiet } from "./abi.gen.js";
import type { ResolvedOptions } from "./config.js";
import type { Engine } from "./engine.js";
import { initWithin } from "./deadline.js";
import { Flight, FlightTable, type Joinable, noop } from "./flights.js";
import { sendMutation } from "./mutations.js";
import { type Core, type Plan, quietAnswer, send, sendShared, statusOf } from "./network.js";
import { type Described, readCall } from "./request.js";
import { Copies, synthetic } from "./responses.js";
import { inScope } from "./scope.js";
import { parked } from "./wait.js";

/** What the facade lends the Go path: its clock, its calls into Go, its counters. */
export type Facade = Omit<Core, "copies" | "lastSuccess" | "lastSuccessSent"> & {
  /** False once a call into Go failed (the facade fell back to the gate). */
  alive(): boolean;
  baseUrl(): string;
  /** Hands a call to the browser's fetch untouched (counted). */
  passThrough(input: RequestInfo | URL, init: RequestInit | undefined): Promise<Response>;
  /** A call answered without a request of its own (counted). */
  local<T>(answer: T): T;
};

export type GoPath = ReturnType<typeof createGoPath>;

/** The table's entry for a quiet lead (see lead()): callers who join share a flight of their own. */
class Lead implements Joinable {
  settled = false;
  joiners: Flight | null = null;

  /** Joins the joiners' flight (they may all have left one: then a new one). Nobody can cancel the request. */
  add(signal: AbortSignal | undefined): Promise<Response> {
    if (!this.joiners || this.joiners.settled) this.joiners = new Flight(noop, false);
    return this.joiners.add(signal);
  }
}

/**
 * The Go path over `engine`. `again` is the facade's fetch: a request that
 * waited for a probe goes through it once more.
 */
export function createGoPath(
  engine: Engine,
  facade: Facade,
  o: Readonly<ResolvedOptions>,
  again: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>,
) {
  const core: Core = { ...facade, copies: new Copies(), lastSuccess: 0, lastSuccessSent: 0 };
  const { call, sync, now, fetch: nativeFetch, passThrough, local } = facade;
  const flights = new FlightTable();
  const probes = new Map<number, { ended: Promise<void>; release(): void; timer: ReturnType<typeof setTimeout> }>(); // half-open probes with waiters
  let solo = 0; // names quiet-path flights that are not shared

  function decide(req: Described, input: RequestInfo | URL, init: RequestInit | undefined): Promise<Response> | null {
    // Go says no policy has anything to say (guard.Quiet): a plain GET goes
    // out without a call, coalesced by URL (it has no other property), and
    // only an answer that matters is reported.
    if (req.plain) {
      const bits = engine.quiet(); // a read of Go's memory: no call, nothing to catch
      if (bits & Quiet.Idle) {
        if (!inScope(req.url, o.scope)) return passThrough(input, init);
        const coalesce = (bits & Quiet.Coalesce) !== 0;
        const shared = coalesce ? flights.get(req.url) : undefined; // (no other kind of key is an absolute URL)
        if (shared && !shared.settled) {
          core.counts.coalesced++;
          return local(shared.add(req.signal));
        }
        const plan = { ticket: 0, sentAt: 0, input, init, req };
        const own = coalesce ? req.url : `s${++solo}`;
        return req.signal === undefined ? lead(own, plan) : sendShared(core, flights, own, plan);
      }
    }
    const a = call((e) => e.begin(now(), req.method, req.url, req.headers));
    if (a === null) {
      if (!facade.alive()) return null;
      core.counts.untouched++; // too large to decide on: passed through untouched, never on a prefix
      return passThrough(input, init);
    }
    sync(a.changed);
    switch (a.kind) {
      case Kind.Pass:
        return passThrough(input, init);
      case Kind.Send: {
        const release = () => releaseProbe(a.probe);
        const plan = { ticket: a.ticket, sentAt: 0, input, init, req };
        if (a.keyed) return sendMutation(core, flights, plan, release);
        return sendShared(core, flights, a.flight ? `g${a.flight}` : `t${a.ticket}`, plan, release);
      }
      case Kind.Join: {
        const flight = flights.get(`g${a.flight}`);
        if (flight && !flight.settled) return local(flight.add(req.signal));
        core.counts.network++;
        return nativeFetch(input, init); // (Go and JS track the same flights; a missing one cannot happen)
      }
      case Kind.Wait:
        return waitForProbe(a.probe, a.probeTimeoutMs, req, input, init);
      case Kind.Open:
        return local(Promise.resolve(synthetic("open", a.untilMs, a.status, now())));
      case Kind.Cooling:
        return local(Promise.resolve(synthetic("cooldown", a.untilMs, 429, now())));
      case Kind.Negative:
        return local(Promise.resolve(synthetic("negative", a.untilMs, a.status, now())));
      case Kind.Stale: {
        const copy = core.copies.answer(a.copyId, a.copyAgeMs, a.copyStoredAtMs);
        return local(Promise.resolve(copy ?? synthetic("open", a.untilMs || now(), a.status || 503, now())));
      }
      case Kind.Cached: {
        // The key keeps answering empty: its last answer, said to be cached.
        const cached = core.copies.answer(a.copyId, a.copyAgeMs, a.copyStoredAtMs, "cached");
        return cached ? local(Promise.resolve(cached)) : null;
      }
    }
  }

  /**
   * A quiet request whose first caller has no signal (the commonest call:
   * nobody can cancel it): that caller gets fetch's own answer through one
   * reaction, without a flight. An answer that changes nothing (nearly all)
   * is handed out there; any other goes on through send() as if it had sent
   * it (Go adopts the request, and may retry it or serve a stale copy).
   */
  function lead(key: string, plan: Plan): Promise<Response> {
    const entry = new Lead();
    flights.set(key, entry);
    core.counts.network++;
    plan.sentAt = now();
    const deadline = (plan.deadline = core.deadlines.start(core.timeoutOf(plan.init)));
    return nativeFetch(plan.input, deadline ? initWithin(plan.input, plan.init, deadline.signal) : plan.init).then(
      (res) => {
        const answered = now();
        if (!quietAnswer(core, statusOf(res), plan.sentAt, answered)) return handOver(key, entry, plan, Promise.resolve(res)); // send() ends the deadline
        deadline?.end();
        entry.settled = true;
        flights.close(key, entry);
        entry.joiners?.resolve(res.clone());
        return res;
      },
      (err: unknown) => handOver(key, entry, plan, Promise.reject(err)),
    );
  }

  function handOver(key: string, entry: Lead, plan: Plan, sent: Promise<Response>): Promise<Response> {
    const p = entry.add(undefined); // the lead's caller among the joiners
    void send(core, entry.joiners!, plan, sent).then(() => {
      entry.settled = true;
      flights.close(key, entry);
    });
    return p;
  }

  /** Half-open: wait for the probe to end (at most waitMs, Go's probe timeout), then decide again. */
  function waitForProbe(probeId: number, waitMs: number, req: Described, input: RequestInfo | URL, init?: RequestInit) {
    let probe = probes.get(probeId);
    if (!probe) {
      let release!: () => void;
      const ended = new Promise<void>((r) => (release = r));
      // A probe that never answers is replaced after Go's timeout; so are its waiters.
      probes.set(probeId, (probe = { ended, release, timer: setTimeout(() => releaseProbe(probeId), waitMs) }));
    }
    return parked(req.signal, probe.ended).then(() => again(input, init));
  }

  /** The probe ended (answered, abandoned, timed out, or Go is gone): its waiters decide again. */
  function releaseProbe(probeId: number) {
    const probe = probes.get(probeId);
    if (!probe) return;
    probes.delete(probeId);
    clearTimeout(probe.timer);
    probe.release();
  }

  return {
    /** Go's answer for a fetch call; null to fall to the gate (Go is gone, or its copy is). */
    fetch(input: RequestInfo | URL, init: RequestInit | undefined): Promise<Response> | null {
      const req = readCall(input, init, facade.baseUrl());
      return req ? decide(req, input, init) : passThrough(input, init);
    },
    /** Logout: copies, pending keys and in-flight sharing are dropped. */
    forget(t: number) {
      flights.clear(); // no flight can be joined any more; each still ends for its callers
      call((e) => e.forget(t));
      for (const id of call((e) => e.dropped()) ?? []) core.copies.drop(id);
    },
    /** Go is gone: whoever waits for a probe decides again (through the gate). */
    release() {
      for (const id of [...probes.keys()]) releaseProbe(id);
    },
    get flights() {
      return flights.size;
    },
    get copies() {
      return core.copies.size;
    },
  };
}
