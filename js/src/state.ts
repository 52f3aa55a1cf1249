// The circuit's state as the page sees it, and the subscribers. Go owns the
// state once the wasm runs (this is then its mirror); before that, and in
// fallback, the pre-ready gate sets it from storage.

import type { CircuitState } from "./storage.js";
import type { Listener } from "./types.js";

/** A listener's error must not stop the others, nor vanish. */
export function report(e: unknown): void {
  setTimeout(() => {
    throw e;
  });
}

export class StateMirror {
  private current: CircuitState | null = null;
  private readonly listeners = new Set<Listener>();
  /** Bumped on every change: a notification round stops when a listener changed the state again. */
  private version = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * `expire` is called when the armed state's time is up (the timer that
   * tells subscribers the overlay can close); `now` is the clock.
   */
  constructor(
    private readonly now: () => number,
    private readonly expire: () => void,
  ) {}

  get(): CircuitState | null {
    return this.current;
  }

  /** Armed at `now()`. */
  armed(): boolean {
    return this.current !== null && this.now() < this.current.until;
  }

  get size(): number {
    return this.listeners.size;
  }

  set(next: CircuitState | null): void {
    const s = this.current;
    if (next === s || (next && s && next.until === s.until && next.httpStatus === s.httpStatus)) return;
    this.current = next;
    const v = ++this.version;
    clearTimeout(this.timer);
    if (next) this.timer = setTimeout(this.expire, Math.max(0, next.until - this.now()) + 1);
    const snapshot = next && { ...next };
    for (const l of [...this.listeners]) {
      // A listener that changed the state (clear() on "armed") started a newer
      // round that told everyone: this round must not overwrite it.
      if (this.version !== v) return;
      if (!this.listeners.has(l)) continue;
      try {
        l(snapshot);
      } catch (e) {
        report(e);
      }
    }
  }

  subscribe(listener: Listener): () => void {
    if (typeof listener !== "function") throw new TypeError("gatewayCircuit.subscribe: listener must be a function");
    this.listeners.add(listener);
    // Overlay restore: a circuit armed by a previous page load is reported once.
    if (this.armed()) {
      const v = this.version;
      queueMicrotask(() => {
        if (this.listeners.has(listener) && this.version === v && this.armed()) {
          try {
            listener({ ...this.current! });
          } catch (e) {
            report(e);
          }
        }
      });
    }
    return () => {
      this.listeners.delete(listener);
    };
  }
}
