// The deadline of an in-scope request, where the app set one (what it does:
// GatewayRequestInit's timeout, types.ts). By default there is none: slow is
// not down (internal/guard DefaultTimeoutMs).

import { follow as followSignal, noop, watch } from "./flights.js";
import { abortReason, initFor } from "./request.js";
import type { GatewayRequestInit } from "./types.js";

/** The timer's clock, read at every request: the page's global is looked up once. */
const clock = performance;

/** setTimeout's longest delay; a longer deadline is this. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/** The deadline for a call: its own `timeout` option, else `fallback` (the page's). 0: none. */
export function timeoutOf(init: RequestInit | undefined, fallback: number): number {
  const own = (init as GatewayRequestInit | undefined)?.timeout;
  if (own === false) return 0;
  const ms = typeof own === "number" && own > 0 ? own : fallback;
  return Math.min(Math.ceil(ms), MAX_DELAY_MS);
}

/** One request's deadline: its signal aborts at the deadline, or when the signal it follows does. */
export class Deadline {
  timedOut = false;
  private readonly ctl = new AbortController();
  readonly signal = this.ctl.signal;
  /** Stops following the caller's signal (a no-op without one). */
  readonly stop: () => void = noop;

  constructor(
    private readonly owner: Deadlines,
    readonly ms: number,
    follow: AbortSignal | undefined,
    /** When it expires, on the timer's clock (performance.now). */
    readonly expires: number,
  ) {
    // As flights.ts's callers, while the body streams too (within() stops). Not AbortSignal.any: WebKitGTK 2.50's does not follow an AbortSignal.timeout.
    if (follow?.aborted) this.ctl.abort(abortReason(follow));
    else if (follow) this.stop = followSignal(follow, () => this.ctl.abort(abortReason(follow)));
  }

  /** The deadline passed unanswered (the owner's timer): the callers get the TimeoutError. */
  expire(): void {
    this.timedOut = true;
    this.ctl.abort(new DOMException(`gatewayCircuit: no answer from the gateway within ${this.ms} ms`, "TimeoutError"));
  }

  /** The request settled; the signal it follows still aborts the body's download. */
  end(): void {
    this.owner.settled(this);
  }
}

/** `init` with `signal` (the deadline's) in it; an init fetch rejects by itself (a number, say) is left for fetch to reject. */
export function initWithin(input: RequestInfo | URL, init: RequestInit | undefined, signal: AbortSignal): RequestInit | undefined {
  if (init !== undefined && typeof init !== "object" && typeof init !== "function") return init;
  return initFor(input, init, { signal });
}

/** `p` (sent with d's signal) settled through d: d ends; a rejection past the deadline is its TimeoutError. */
export function within(p: Promise<Response>, d: Deadline): Promise<Response> {
  return p.then(
    (res) => {
      d.end();
      if (d.stop !== noop) watch(res, d.stop);
      return res;
    },
    (err: unknown) => {
      d.stop();
      d.end();
      throw d.timedOut ? d.signal.reason : err; // (WebKit rejects with an AbortError, not the reason)
    },
  );
}

/**
 * The in-scope requests in flight with a deadline, and one timer for them all, set for the earliest: most calls
 * share the page's deadline, expire after those in flight and leave it as it is, and one that settles leaves it too.
 */
export class Deadlines {
  private readonly pending = new Set<Deadline>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the timer fires (performance.now), or Infinity when none is set. */
  private timerAt = Infinity;

  /** A deadline of `ms` for a request sent now, following `signal`; null when ms is 0 (none). */
  start(ms: number, signal?: AbortSignal): Deadline | null {
    if (ms <= 0) return null;
    const d = new Deadline(this, ms, signal, clock.now() + ms);
    this.pending.add(d);
    if (d.expires < this.timerAt) this.schedule(d.expires);
    else if (this.pending.size === 1) hold(this.timer, true);
    return d;
  }

  settled(d: Deadline): void {
    if (this.pending.delete(d) && this.pending.size === 0) hold(this.timer, false);
  }

  get size(): number {
    return this.pending.size;
  }

  private schedule(at: number): void {
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(this.fire, Math.min(Math.max(0, at - clock.now()), MAX_DELAY_MS));
  }

  /** The timer: every deadline due expires, the earliest first (a late timer finds several due); the timer is set for the next. */
  private readonly fire = () => {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = clock.now();
    let next = Infinity;
    const due: Deadline[] = [];
    for (const d of this.pending) {
      if (d.timedOut) continue; // in flight until its request settles
      if (d.expires <= now) due.push(d);
      else if (d.expires < next) next = d.expires;
    }
    for (const d of due.sort((a, b) => a.expires - b.expires)) d.expire();
    if (next < Infinity) this.schedule(next);
  };
}

/** Node only (a browser's timer is a number): the timer holds the process up while a request waits, not after. */
function hold(timer: ReturnType<typeof setTimeout> | undefined, on: boolean): void {
  const t = timer as { ref?: () => void; unref?: () => void } | undefined;
  if (on) t?.ref?.();
  else t?.unref?.();
}

