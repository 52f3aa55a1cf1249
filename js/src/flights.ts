// The flight table: one network request and the callers who share its
// answer. Every path uses it — a GET Go coalesced, a plain GET on the quiet
// path, a mutation whose action is in flight — so a caller's abort has one
// meaning everywhere: it rejects that caller only, and the request is
// cancelled when nobody waits for it any more.
//
// The request runs on the flight's own AbortController, never on a caller's
// signal: a leader who aborts must not take the answer from the others. A
// flight whose first caller has no signal can never be emptied, so it runs
// with no signal at all.

import { abortReason } from "./request.js";

export const noop = () => {};

const unheld = typeof FinalizationRegistry === "function" ? new FinalizationRegistry<() => void>((gone) => gone()) : null;
const WATCHED = Symbol("gatewaycircuit.watched");
const bodyOf = /* @__PURE__ */ (() => Object.getOwnPropertyDescriptor(Response.prototype, "body")?.get)();

/**
 * Calls `release` once the answer `r`, and its body if the caller took it (a
 * reader holds it without the Response), are collected: engines keep both
 * while the body loads. Each is changed (r by its accessor, the body by a
 * mark): an engine may drop a script object it did not see changed, and make
 * another. The body is not taken here (WebKit would then reject an abort with
 * a TypeError). Made apart from where answers are handed out: a closure there
 * would hold them.
 */
export function watch(r: Response, release: () => void): void {
  let live = 1;
  const gone = () => void (--live === 0 && release());
  unheld?.register(r, gone);
  const get = function (this: Response) {
    const b = bodyOf!.call(this) as ReadableStream | null;
    if (b && !(WATCHED in b)) {
      live++;
      unheld?.register(Object.defineProperty(b, WATCHED, { value: true }), gone);
    }
    return b;
  };
  if (unheld && bodyOf) Object.defineProperty(r, "body", { configurable: true, get });
}

/**
 * What listens to each caller's signal: one listener per signal, however many
 * calls share it. A listener per call made a long-lived signal gather one per
 * call until the answers were collected, and addEventListener scans them all.
 */
const following = new WeakMap<AbortSignal, Set<() => void>>();

/** Calls onAbort when `signal` aborts; returns what stops it. */
export function follow(signal: AbortSignal, onAbort: () => void): () => void {
  let all = following.get(signal);
  if (!all) {
    const fresh = (all = new Set());
    following.set(signal, fresh);
    signal.addEventListener("abort", () => [...fresh].forEach((f) => f()), { once: true });
  }
  all.add(onAbort);
  return () => void all.delete(onAbort);
}

interface Member {
  resolve(r: Response): void;
  reject(e: unknown): void;
  /** Stops listening to the caller's signal (a no-op without one). */
  stop(): void;
  watching: boolean;
}

export class Flight {
  private ctl: AbortController | null = null;
  private readonly members = new Set<Member>();
  /** Callers holding the answer whose signal can still abort its body. */
  private holders = 0;
  /** True once the answer (or failure) was handed out, or everyone left. */
  settled = false;

  /** `abandoned` runs once, when the last caller leaves before the answer; `cancellable`: see the file's header. */
  constructor(
    private readonly abandoned: () => void,
    readonly cancellable = true,
  ) {}

  /** The network request's signal (aborted when every caller left), or undefined when it cannot be cancelled. */
  get signal(): AbortSignal | undefined {
    return this.cancellable ? (this.ctl ??= new AbortController()).signal : undefined;
  }

  /** A caller joins (the leader too); its promise settles with its own Response. One already aborted leaves at once, as fetch rejects. */
  add(signal: AbortSignal | undefined): Promise<Response> {
    return new Promise<Response>((resolve, reject) => {
      const member: Member = { resolve, reject, stop: noop, watching: signal !== undefined };
      this.members.add(member);
      if (signal?.aborted) return this.left(member, signal); // its 'abort' event is gone
      if (signal) member.stop = follow(signal, () => this.left(member, signal));
    });
  }

  /** Hands the answer out: a clone to each caller, the original to the last. */
  resolve(res: Response): void {
    if (this.settled) return;
    this.settled = true;
    const all = [...this.members];
    this.members.clear();
    all.forEach((m, i) => {
      const r = i === all.length - 1 ? res : res.clone();
      // A caller with a signal listens until its answer is collected: its
      // abort stops the body, as with fetch, once every holder aborted.
      if (m.watching) {
        this.holders++;
        watch(r, releaser(this, m));
      }
      m.resolve(r);
      m.resolve = m.reject = noop; // what listens must not hold the answer, or its body is never collected
    });
  }

  reject(err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    for (const m of this.members) {
      m.stop();
      m.reject(err);
    }
    this.members.clear();
  }

  private left(m: Member, signal: AbortSignal): void {
    if (this.settled) {
      // After the answer: the body is still streaming to this caller.
      if (this.release(m) !== 0) return;
    } else {
      if (!this.members.delete(m)) return;
      m.reject(abortReason(signal));
      if (this.members.size > 0) return;
      this.settled = true;
      this.abandoned();
    }
    (this.ctl ??= new AbortController()).abort(signal.reason);
  }

  /** m stops listening (it aborted, or its answer was collected); the holders left, or -1. */
  release(m: Member): number {
    if (!m.watching) return -1;
    m.watching = false;
    m.stop();
    return --this.holders;
  }
}

/** Made here: a closure where the answer is handed out would hold it, and its body would never be collected. */
const releaser = (f: Flight, m: Member) => () => void f.release(m);

/** What a later caller joins: a Flight, or the quiet path's lead (gopath.ts). */
export interface Joinable {
  readonly settled: boolean;
  add(signal: AbortSignal | undefined): Promise<Response>;
}

/** Flights by key: "g<id>" for Go's flights, the URL itself on the quiet path, "m <op> <key>" for mutations. */
export class FlightTable extends Map<string, Joinable> {
  /** A new flight under key; it leaves the table when it settles or is abandoned. */
  open(key: string, abandoned: () => void, cancellable = true): Flight {
    const f = new Flight(() => {
      this.close(key, f);
      abandoned();
    }, cancellable);
    this.set(key, f);
    return f;
  }

  /** Takes f from under key, unless another flight took its place. */
  close(key: string, f: Joinable): void {
    if (this.get(key) === f) this.delete(key);
  }
}
