// The instances of one tab agree: each frame of a page may run its own
// instance, and the same-origin ones share the tab's sessionStorage, so a
// circuit one of them arms or clears is the others' circuit too. Two ways
// tell them:
// - tellFrames: an instance whose state changed calls at once the reload of
//   every other instance in the tab's frames it can reach (the same origin's:
//   another origin's have storage of their own), before the call returns.
// - the storage event, for a write by anything else (the tag's stand-in
//   before the facade ran, an app writing the key itself): it comes to the
//   other frames a task or more later (in WebKit, sometimes after a timer of
//   0 ms queued after the write), never to the frame that wrote.
// A reload reads its own instance's storage (the call carries nothing); an
// instance told of a change it already holds changes nothing, so calls end.

/** An instance's reload, under this symbol on window.gatewayCircuit (the same across frames: Symbol.for). */
export const RELOAD = Symbol.for("gatewaycircuit.reload");

export function tellFrames(self: Window): void {
  let top: Window;
  try {
    top = self.top ?? self;
  } catch {
    return;
  }
  const visit = (w: Window) => {
    if (w !== self) {
      try {
        const reload = (w as unknown as { gatewayCircuit?: { [RELOAD]?: () => void } }).gatewayCircuit?.[RELOAD];
        if (typeof reload === "function") reload();
      } catch {
        // another origin: its frames are visited all the same
      }
    }
    let n = 0;
    try {
      n = w.length;
    } catch {
      return;
    }
    for (let i = 0; i < n; i++) {
      const child = w[i];
      if (child) visit(child);
    }
  };
  visit(top);
}

/** Whether a storage event says the circuit or the pauses changed in `storage`. */
export function storedStateChanged(e: StorageEvent, storage: unknown, keys: readonly string[]): boolean {
  return storage !== null && e.storageArea === storage && (e.key === null || keys.includes(e.key));
}
