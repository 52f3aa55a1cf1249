// What blocks requests, as the page sees it, and the subscribers. Go owns the
// state once the wasm runs (this is then its mirror); before that, and in
// fallback, the pre-ready gate sets it from storage.

import type { CircuitState, Pause } from "./storage.js";
import type { Blocking, Listener } from "./types.js";

/** Calls a listener. Its error must not stop the others, nor vanish: it is thrown again in a task of its own. */
export function tell<A extends unknown[]>(listener: (...args: A) => void, ...args: A): void {
  try {
    listener(...args);
  } catch (e) {
    setTimeout(() => {
      throw e;
    });
  }
}

/**
 * The overlay's restore, the same in every phase: `listener` is told, in a
 * microtask, what blocks (from `blocking`), if anything does, it is still
 * `subscribed()`, and `version()` says no change was told meanwhile.
 */
export function restore(listener: Listener, blocking: () => Blocking, subscribed: () => boolean, version: () => number): void {
  const v = version();
  queueMicrotask(() => {
    const b = blocking();
    if (subscribed() && version() === v && (b.circuit || b.halfOpen || b.pauses.length)) tell(listener, b.circuit && { ...b.circuit }, b);
  });
}

const NOTHING: Blocking = /* @__PURE__ */ Object.freeze({ circuit: null, halfOpen: false, pauses: /* @__PURE__ */ Object.freeze([]) as readonly Pause[] });

export class StateMirror {
  private current: Blocking = NOTHING;
  private key = "";
  private readonly listeners = new Set<Listener>();
  /** Bumped on every change: a notification round stops when a listener changed the state again. */
  private version = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /** `expire` reads the state again when its earliest deadline (the circuit's, a pause's) passes; `changed` runs before the listeners. */
  constructor(
    private readonly now: () => number,
    private readonly expire: () => void,
    private readonly changed: () => void = () => {},
  ) {}

  /** The armed circuit, as held. */
  get(): CircuitState | null {
    return this.current.circuit;
  }

  blocking(): Blocking {
    return this.current;
  }

  /** The circuit is armed at `now()`. */
  armed(): boolean {
    const c = this.current.circuit;
    return c !== null && this.now() < c.until;
  }

  get size(): number {
    return this.listeners.size;
  }

  set(circuit: CircuitState | null, halfOpen = false, pauses: readonly Pause[] = []): void {
    const key = JSON.stringify([circuit, halfOpen, pauses]);
    if (key === this.key) return;
    this.key = key;
    const next: Blocking = Object.freeze({
      circuit: circuit && Object.freeze({ ...circuit }),
      halfOpen,
      pauses: Object.freeze(pauses.map((p) => Object.freeze({ ...p }))),
    });
    this.current = next;
    const v = ++this.version;
    clearTimeout(this.timer);
    const deadlines = [...(circuit ? [circuit.until] : []), ...pauses.map((p) => p.until)];
    if (deadlines.length) this.timer = setTimeout(this.expire, Math.max(0, Math.min(...deadlines) - this.now()) + 1);
    this.changed();
    if (this.version !== v) return; // a newer round told everyone
    for (const l of [...this.listeners]) {
      // A listener that changed the state (clear() on "armed") started a newer
      // round that told everyone: this round must not overwrite it.
      if (this.version !== v) return;
      if (this.listeners.has(l)) tell(l, next.circuit && { ...next.circuit }, next);
    }
  }

  /** `told`: the listener was told of the restored state already (by the stand-in, early.ts). */
  subscribe(listener: Listener, told = false): () => void {
    if (typeof listener !== "function") throw new TypeError("gatewayCircuit.subscribe: listener must be a function");
    this.listeners.add(listener);
    if (!told) restore(listener, () => this.current, () => this.listeners.has(listener), () => this.version);
    return () => void this.listeners.delete(listener);
  }
}
