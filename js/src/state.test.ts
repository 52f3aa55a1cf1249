import assert from "node:assert/strict";
import { test } from "node:test";
import { StateMirror } from "./state.js";

test("subscribers end on the current state when a listener clears during 'armed'", () => {
  const m = new StateMirror(() => 1000, () => {});
  const seen: (number | null)[][] = [[], [], []];
  m.subscribe((s) => seen[0]!.push(s && s.httpStatus));
  m.subscribe((s) => {
    seen[1]!.push(s && s.httpStatus);
    if (s) m.set(null); // the overlay's "try again" runs inside the notification
  });
  m.subscribe((s) => seen[2]!.push(s && s.httpStatus));
  m.set({ until: 5000, httpStatus: 502 });
  assert.equal(m.get(), null);
  for (const s of seen) assert.equal(s.at(-1), null, `last notification ${JSON.stringify(s)}`);
});

test("a throwing listener does not stop the others", () => {
  const m = new StateMirror(() => 0, () => {});
  let reached = false;
  const deferred: (() => void)[] = [];
  const realSetTimeout = globalThis.setTimeout;
  m.subscribe(() => {
    throw new Error("boom");
  });
  m.subscribe(() => {
    reached = true;
  });
  globalThis.setTimeout = ((f: () => void) => deferred.push(f)) as unknown as typeof setTimeout;
  try {
    m.set({ until: 10, httpStatus: 503 });
  } finally {
    globalThis.setTimeout = realSetTimeout;
  }
  assert.ok(reached);
  assert.throws(() => deferred.forEach((f) => f()), { message: "boom" }, "rethrown asynchronously");
});
