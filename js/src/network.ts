// The network step: sends a request Go let through, on its flight's own
// signal, and carries out what Go says about the answer (retry after a short
// Retry-After, answer with a stale copy, keep a copy of the body). It
// decides nothing itself.

import { Status } from "./abi.gen.js";
import { type Deadline, type Deadlines, initWithin } from "./deadline.js";
import type { Engine, Outcome } from "./engine.js";
import { type Flight, type FlightTable, noop } from "./flights.js";
import { TIMEOUT_STATUS } from "./policy.gen.js";
import { type Described, initFor } from "./request.js";
import { parked } from "./wait.js";
import type { Copies } from "./responses.js";
import type { JsCounts } from "./metrics.gen.js";

/** What the steps need from the facade. */
export interface Core {
  fetch: typeof fetch;
  now(): number;
  /** Calls into Go; null when the wasm is not running (the caller falls back). */
  call<T>(f: (e: Engine) => T): T | null;
  /** Tells subscribers when a call reported that the circuit changed. */
  sync(changed: boolean): void;
  copies: Copies;
  /** What the JS side carries out, counted where it happens. */
  counts: JsCounts;
  /** When the latest in-scope success on the quiet path was answered (0: reported already), and sent. */
  lastSuccess: number;
  lastSuccessSent: number;
  /** Go still says no policy has anything to say (guard.Quiet): a read of its memory, no call. */
  idle(): boolean;
  /** Go says an answer with this status on the quiet path changes nothing (guard.Uneventful): a read of its memory, no call. */
  uneventful(status: number): boolean;
  /** The in-scope requests in flight with a deadline. */
  deadlines: Deadlines;
  /** The deadline for a call with `init` (its own `timeout`, else the page's); 0: none. */
  timeoutOf(init: RequestInit | undefined): number;
}

/** One request on its way: `ticket` is 0 on the quiet path until an answer that matters adopts one. */
export interface Plan {
  ticket: number;
  /** When it was sent (the fetch call): the trip rule asks what was in flight together. */
  sentAt: number;
  /** Its deadline, from when it was sent (null: none). */
  deadline?: Deadline | null;
  input: RequestInfo | URL;
  init: RequestInit | undefined;
  req: Described;
}

/** How Go sees an answer: its status, or Status.Opaque when the page cannot see it. */
export function statusOf(res: Response): number {
  const st = res.status; // an opaque answer's is 0, and one read is cheaper than the type's string
  return st === 0 && (res.type === "opaque" || res.type === "opaqueredirect") ? Status.Opaque : st;
}

/**
 * On the quiet path (no ticket), an answer that changes nothing (Go's table:
 * guard.Uneventful) to a request sent at `sent` is not reported: true when
 * `st` is one, and it was dealt with here. The latest success is kept for
 * the trip rule (gc_succeeded); an opaque answer is none.
 */
export function quietAnswer(core: Core, st: number, sent: number, answered: number): boolean {
  if (!core.uneventful(st)) return false;
  if (st === Status.Opaque) return true;
  if (core.idle()) {
    core.lastSuccess = answered;
    core.lastSuccessSent = sent;
    return true;
  }
  // A failure of the same burst made Go speak meanwhile (it armed, say):
  // this success counts now, and may withdraw that trip at once.
  succeeded(core, sent, answered);
  core.sync(true);
  return true;
}

/** Tells Go of an in-scope success on the quiet path (it is reported then). */
function succeeded(core: Core, sent: number, answered: number): void {
  core.lastSuccess = 0;
  core.call((e) => e.succeeded(sent, answered));
}

/**
 * Opens a flight under `key` for plan, joined by its caller, and sends it;
 * `after` runs with what the network gave once the flight left the table.
 */
export function sendShared(core: Core, flights: FlightTable, key: string, plan: Plan, after?: (res: Response | null) => void): Promise<Response> {
  const signal = plan.req.signal;
  const flight = flights.open(key, () => plan.ticket && core.call((e) => e.abort(plan.ticket)), signal !== undefined);
  const p = flight.add(signal);
  void send(core, flight, plan).then((res) => {
    flights.close(key, flight);
    after?.(res);
  });
  return p;
}

/**
 * Sends plan on flight and settles the flight with the answer. The returned
 * promise never rejects: it says what the network gave (null: no answer),
 * for steps that record it (mutations). `sent`: the request is on its way
 * already (the quiet path's lead), its first attempt is that one.
 */
export function send(core: Core, flight: Flight, plan: Plan, sent?: Promise<Response>): Promise<Response | null> {
  const signal = flight.signal;
  const { req } = plan;
  const init = signal ? initFor(plan.input, plan.init, { signal }) : plan.init;
  let answer: Response | null = null;

  const report = (res: Response | null, timedOut = false): Outcome | null => {
    const st = res ? statusOf(res) : timedOut ? TIMEOUT_STATUS : Status.NoAnswer;
    if (!plan.ticket) {
      if (quietAnswer(core, st, plan.sentAt, core.now())) return null;
      if (core.lastSuccess) succeeded(core, core.lastSuccessSent, core.lastSuccess);
      plan.ticket = core.call((e) => e.adopt(plan.sentAt, req.url)) ?? 0;
      if (!plan.ticket) return null;
    }
    // Go says which answers' headers count (Retry-After on a 429 or 503, Cache-Control on a copy): all are passed.
    const retryAfter = res?.headers.get("retry-after") ?? "";
    const cacheControl = res?.headers.get("cache-control") ?? "";
    const finalUrl = res && res.redirected ? res.url : "";
    const out = core.call((e) => e.finish(core.now(), plan.ticket, st, retryAfter, cacheControl, finalUrl));
    if (out) core.sync(out.changed);
    return out;
  };

  const stale = (out: Outcome | null) => (out?.serve ? core.copies.answer(out.copyId, out.copyAgeMs, out.copyStoredAtMs) : null);

  let original = false; // the caller's own Request was sent: there is no body left for a retry
  const attempt = (sent?: Promise<Response>): Promise<Response> => {
    if (!sent) {
      // A Request's body can be read once: every send gets its own clone (an
      // engine that cannot clone it sends the original, and never retries).
      let input = plan.input;
      if (req.requestBody) {
        try {
          input = (plan.input as Request).clone();
        } catch {
          original = true;
        }
      }
      core.counts.network++;
      plan.sentAt = core.now();
      plan.deadline = core.deadlines.start(core.timeoutOf(plan.init), signal);
      sent = core.fetch(input, plan.deadline ? initWithin(plan.input, plan.init, plan.deadline.signal) : init);
    }
    const deadline = plan.deadline;
    return sent.then(
      (res) => {
        deadline?.end();
        const out = report(res);
        if (out?.retry && !req.oneShotBody && !original && !signal?.aborted) {
          // A short Retry-After on a 429: wait (the flight's abort cancels), then once more.
          void res.body?.cancel().catch(noop);
          return parked(signal, null, out.waitMs).then(() => {
            core.counts.retries++;
            return attempt();
          });
        }
        const served = stale(out);
        if (served) {
          void res.body?.cancel().catch(noop);
          return served;
        }
        if (out?.wantBody) {
          const ticket = plan.ticket;
          res = core.copies.keep(
            res,
            (body) => core.call((e) => e.store(core.now(), ticket, body)) ?? 0,
            () => {
              for (const id of core.call((e) => e.dropped()) ?? []) core.copies.drop(id);
            },
          );
        }
        answer = res;
        return res;
      },
      (err: unknown) => {
        deadline?.end();
        // Abandoned by every caller: Go was told when the last one left.
        if (signal?.aborted) throw err;
        const timedOut = deadline?.timedOut ?? false;
        const served = stale(report(null, timedOut));
        if (served) return served;
        throw timedOut ? deadline!.signal.reason : err; // (WebKit rejects with an AbortError, not the reason)
      },
    );
  };

  return attempt(sent).then(
    (res) => {
      flight.resolve(res);
      return answer;
    },
    (err: unknown) => {
      flight.reject(err);
      return null;
    },
  );
}
