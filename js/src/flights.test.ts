import assert from "node:assert/strict";
import { test } from "node:test";
import { FlightTable } from "./flights.js";
import { countedSignal } from "../test/counted-signal.js";

const tick = () => new Promise((r) => setTimeout(r, 0));

test("abort then refetch: the last caller's abort empties the slot, and the same request starts afresh", async () => {
  const table = new FlightTable();
  let abandoned = 0;
  const first = table.open("g1", () => abandoned++);
  const ac = new AbortController();
  const p = first.add(ac.signal);
  ac.abort(new DOMException("gone", "AbortError"));
  await assert.rejects(p, { name: "AbortError", message: "gone" });
  assert.equal(abandoned, 1, "Go is told once");
  assert.ok(first.signal!.aborted, "the network request is cancelled");
  assert.equal(table.get("g1"), undefined, "a refetch does not join the cancelled flight");
  const again = table.open("g1", () => abandoned++);
  assert.notEqual(again, first);
});

test("a leader who aborts leaves the answer to the callers still waiting", async () => {
  const table = new FlightTable();
  let abandoned = 0;
  const f = table.open("g1", () => abandoned++);
  const leader = new AbortController();
  const lp = f.add(leader.signal);
  const jp = f.add(undefined);
  leader.abort("leader left");
  await assert.rejects(lp, (e) => e === "leader left");
  assert.equal(f.signal!.aborted, false, "the request goes on for the joiner");
  assert.equal(abandoned, 0);
  f.resolve(new Response("answer"));
  assert.equal(await (await jp).text(), "answer");
});

test("each caller reads its own body; the original goes to the last", async () => {
  const f = new FlightTable().open("g1", () => {});
  const ps = [f.add(undefined), f.add(undefined), f.add(undefined)];
  const original = new Response("same");
  f.resolve(original);
  const rs = await Promise.all(ps);
  assert.equal(rs[2], original);
  assert.deepEqual(await Promise.all(rs.map((r) => r.text())), ["same", "same", "same"]);
});

test("abort after the answer stops the body once every holder aborted, as fetch does", async () => {
  const f = new FlightTable().open("g1", () => {});
  const a = new AbortController();
  const p = f.add(a.signal);
  f.resolve(new Response("streaming"));
  await p;
  assert.equal(f.signal!.aborted, false);
  a.abort();
  assert.ok(f.signal!.aborted, "the download is cancelled");
});

test("a failure reaches every caller; a later abort changes nothing", async () => {
  const f = new FlightTable().open("g1", () => assert.fail("not abandoned"));
  const a = new AbortController();
  const ps = [f.add(a.signal), f.add(undefined)];
  f.reject(new TypeError("Failed to fetch"));
  for (const p of ps) await assert.rejects(p, TypeError);
  a.abort();
  await tick();
});

test("a caller who joins with a signal already aborted is rejected at once, and leaves as if it aborted there", async () => {
  const table = new FlightTable();
  let abandoned = 0;
  const f = table.open("m1", () => abandoned++);
  const p = f.add(AbortSignal.abort(new DOMException("timed out", "TimeoutError")));
  await assert.rejects(p, { name: "TimeoutError" });
  assert.equal(abandoned, 1, "nobody else waits: Go is told");
  assert.ok(f.signal!.aborted, "the network request is cancelled");
  assert.equal(table.get("m1"), undefined);
  const shared = table.open("m2", () => abandoned++);
  const waiting = shared.add(undefined);
  await assert.rejects(shared.add(AbortSignal.abort("late")), (e) => e === "late");
  assert.equal(shared.signal!.aborted, false, "the request goes on for the caller still waiting");
  shared.resolve(new Response("answer"));
  assert.equal(await (await waiting).text(), "answer");
});

test("calls sharing one long-lived signal add one abort listener to it, and its abort still reaches each of them", async () => {
  const table = new FlightTable();
  const { ac, added } = countedSignal();
  const flights = Array.from({ length: 50 }, (_, i) => table.open(`g${i}`, () => {}));
  const answered = flights.slice(0, 25).map((f) => f.add(ac.signal));
  const waiting = flights.slice(25).map((f) => f.add(ac.signal));
  flights.slice(0, 25).forEach((f) => f.resolve(new Response("streaming")));
  await Promise.all(answered);
  assert.equal(added(), 1, "one listener for 50 calls");
  ac.abort("unmounted");
  await Promise.all(waiting.map((p) => assert.rejects(p, (e) => e === "unmounted")));
  assert.ok(flights.every((f) => f.signal!.aborted), "every request is cancelled, those whose body streams too");
});
