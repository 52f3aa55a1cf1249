// Marks the document before first paint when the stored circuit is armed, so
// CSS can show a restored overlay in the very first frame instead of after
// the app hydrates. It only reads, with the module's own reading rule
// (storage.ts restorePhase); cleaning up an expired or bad entry is the module's job.

import { readRaw, restorePhase, sessionStorageOf } from "./storage.js";

/** The attribute on <html>: "armed" while the stored circuit is armed. */
export const ARMED_ATTRIBUTE = "data-gateway-circuit";

export function markIfArmed(root: Element, storageHost: object, now: number, maxTtlMs: number): boolean {
  const armed = restorePhase(readRaw(sessionStorageOf(storageHost)), now, maxTtlMs).phase === "open";
  if (armed) root.setAttribute(ARMED_ATTRIBUTE, "armed");
  return armed;
}
