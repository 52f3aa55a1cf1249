import assert from "node:assert/strict";
import { test } from "node:test";
import { Deadlines, within } from "./deadline.js";
import { countedSignal } from "../test/counted-signal.js";

const aborted = (s: AbortSignal) => new Promise((r) => s.addEventListener("abort", r, { once: true }));

test("deadlines share one timer, set for the earliest; each expires in its turn, a settled one never", async (t) => {
  const timers = t.mock.method(globalThis, "setTimeout");
  const deadlines = new Deadlines();
  // Far apart, so that a stalled main thread (a loaded machine) cannot make 10 ms expire after the others.
  const later = deadlines.start(300)!;
  const settled = deadlines.start(310)!;
  const last = deadlines.start(320)!;
  assert.equal(timers.mock.callCount(), 1, "calls that expire after those in flight set no timer");
  const first = deadlines.start(10)!; // its own, shorter deadline: the timer is set again, earlier
  assert.equal(timers.mock.callCount(), 2);
  settled.end();
  const order: string[] = [];
  for (const [name, d] of Object.entries({ later, settled, last, first })) d.signal.addEventListener("abort", () => order.push(name));
  await aborted(last.signal);
  assert.deepEqual(order, ["first", "later", "last"]);
  order.length = 0;
  // A timer that comes late (a busy main thread) finds several due: they expire in their order all the same.
  const a = deadlines.start(30)!;
  const b = deadlines.start(20)!;
  for (const [name, d] of Object.entries({ a, b })) d.signal.addEventListener("abort", () => order.push(name));
  const busyUntil = performance.now() + 40;
  while (performance.now() < busyUntil); // both are due before the timer can run
  await aborted(a.signal);
  assert.deepEqual(order, ["b", "a"]);
  assert.equal((first.signal.reason as DOMException).name, "TimeoutError");
  assert.equal(first.timedOut, true);
  assert.equal(settled.timedOut, false);
  assert.equal(deadlines.size, 5, "the expired ones are in flight until their requests settle");
});

test("calls with a deadline sharing one long-lived signal add one abort listener to it; its abort still reaches every request", async () => {
  const deadlines = new Deadlines();
  const { ac, added } = countedSignal();
  const all = Array.from({ length: 40 }, () => deadlines.start(60_000, ac.signal)!);
  // Half answered (their bodies may still stream), half failed without an answer.
  await Promise.all(all.slice(0, 20).map((d) => within(Promise.resolve(new Response("streaming")), d)));
  await Promise.all(all.slice(20).map((d) => assert.rejects(within(Promise.reject(new TypeError("offline")), d))));
  assert.equal(added(), 1, "one listener for 40 calls");
  ac.abort("unmounted");
  assert.ok(all.slice(0, 20).every((d) => d.signal.aborted), "an abort still stops the bodies of the answered calls");
  assert.ok(all.slice(20).every((d) => !d.signal.aborted), "the failed calls stopped following the signal");
});
