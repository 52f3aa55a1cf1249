// A scripted stand-in for the Go engine, for testing the shim's jobs without
// a browser or a wasm: each test says what Go would decide.

import { DEFAULT_UNEVENTFUL, Kind, Quiet } from "../src/abi.gen.js";
import type { Engine, Outcome } from "../src/engine.js";
import { KEYED_METHODS } from "../src/policy.gen.js";

/** The decision for one request (gc_begin): its Kind and flags, and out (BeginOut). */
type Answer = NonNullable<ReturnType<Engine["begin"]>>;
/** A keyed mutation registered (gc_idem_begin): an Idem decision and the Key frame, or a Code and its message. */
type Submission = ReturnType<Engine["idemBegin"]>;

export interface Script {
  quiet?: number;
  begin?: (method: string, url: string, headers: string) => Partial<Answer>;
  finish?: (ticket: number, status: number, finalUrl: string) => Partial<Outcome>;
  idemBegin?: () => Partial<Submission>;
  /** The Pauses frame (the stored format). */
  pauses?: string;
  /** Go's counter i (gc_metric). */
  metric?: (i: number) => number;
}

export class FakeEngine implements Engine {
  readonly calls: string[] = [];
  /** What observe() was told: answers given before Go ran, and when. */
  readonly observed: { now: number; status: number }[] = [];
  /** The headers finish() was given, per answer. */
  readonly answered: { status: number; retryAfter: string; cacheControl: string }[] = [];
  private nextTicket = 1;
  exited = new Promise<void>(() => {});
  constructor(public script: Script = {}) {}

  quiet() {
    return this.script.quiet ?? 0;
  }
  /** Go's table for the default options, as Go generates it (the boundary test reads the real one). */
  uneventful(status: number) {
    return DEFAULT_UNEVENTFUL.some(([first, last]) => status >= first && status <= last);
  }
  adopt(sent: number, url: string) {
    this.calls.push(`adopt ${url} sent ${sent}`);
    return this.nextTicket++;
  }
  begin(_now: number, method: string, url: string, headers: string): Answer {
    this.calls.push(`begin ${method} ${url}`);
    const a = this.script.begin?.(method, url, headers) ?? {};
    return {
      kind: Kind.Send,
      changed: false,
      keyed: KEYED_METHODS.includes(method), // Go's rule with idempotency on, in the page's origin
      ticket: this.nextTicket++,
      flight: 0,
      untilMs: 0,
      status: 0,
      copyId: 0,
      copyAgeMs: 0,
      copyStoredAtMs: 0,
      probe: 0,
      probeTimeoutMs: 30_000,
      ...a,
    };
  }
  finish(_now: number, ticket: number, status: number, retryAfter: string, cacheControl: string, finalUrl: string): Outcome {
    this.calls.push(`finish ${ticket} ${status}`);
    this.answered.push({ status, retryAfter, cacheControl });
    return { changed: false, retry: false, wantBody: false, serve: false, waitMs: 0, copyId: 0, copyAgeMs: 0, copyStoredAtMs: 0, ...this.script.finish?.(ticket, status, finalUrl) };
  }
  observe(_now: number, sent: number, answered: number, status: number, method: string, url: string) {
    this.calls.push(`observe ${method} ${url} ${status} ${sent}-${answered}`);
    this.observed.push({ now: answered, status });
    return false;
  }
  store() {
    return 0;
  }
  dropped() {
    return [];
  }
  idemBegin(): Submission {
    this.calls.push("idemBegin");
    return { code: 1, operation: "POST /x", key: "k1", header: '"k1"', message: "", ...this.script.idemBegin?.() };
  }
  idemFinish(_now: number, operation: string, key: string, status: number) {
    this.calls.push(`idemFinish ${operation} ${key} ${status}`);
    return 0;
  }
  abort(ticket: number) {
    this.calls.push(`abort ${ticket}`);
    return true;
  }
  arm(_now: number, status: number, ttlMs: number) {
    this.calls.push(`arm ${status} ${ttlMs}`);
    return 0;
  }
  clear() {
    return 0;
  }
  read() {
    return 0;
  }
  reload() {
    return 0;
  }
  pauses() {
    return this.script.pauses ?? "";
  }
  succeeded(sent: number, answered: number) {
    this.calls.push(`succeeded ${sent}-${answered}`);
  }
  forget() {
    this.calls.push("forget");
  }
  until() {
    return 0;
  }
  status() {
    return 0;
  }
  metric(i: number) {
    return this.script.metric?.(i) ?? 0;
  }
  message() {
    return "";
  }
  memoryBytes() {
    return 0;
  }
}

export { Kind, Quiet };
