// The one way the shim waits. However it ends, it leaves nothing behind (no
// listener, no timer).

import { abortReason } from "./request.js";

/** Resolves when `released` settles or after `ms` (when given); rejects with the signal's reason when it aborts first. */
export function parked(signal: AbortSignal | undefined, released: Promise<unknown> | null, ms?: number): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const end = (abort: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      if (abort) reject(abortReason(signal!));
      else resolve();
    };
    const onAbort = () => end(true);
    const done = () => end(false);
    const timer = ms === undefined ? undefined : setTimeout(done, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
    released?.then(done, done);
  });
}
