// Redirects in workerd: the edge never follows one. A second origin records
// the headers it gets, so a test can say the edge's own API key never left
// for it.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startEdge, startUpstream } from "./workerd.mjs";

let up, other, edge;

before(async () => {
  up = await startUpstream();
  other = await startUpstream();
  edge = await startEdge({
    upstream: up.url,
    upstreamHeaders: { "x-api-key": "secret-edge-key" },
    services: [{ name: "api", prefix: "/api/" }],
    tokens: { "tok-alice": "alice" },
  });
});

after(async () => {
  await edge?.close();
  up?.stop();
  other?.stop();
});

// The test's own fetch must not follow either: what the edge answered is
// what is checked.
const manual = (path, init = {}) => fetch(edge.url + path, { ...init, redirect: "manual" });

test("a GET answered 307 passes through with its Location, uncached; the other origin gets nothing", async () => {
  await up.mode({ path: "/api/moved", status: 307, location: `${other.url}/elsewhere` });
  for (const n of [1, 2]) {
    const r = await manual("/api/moved");
    assert.equal(r.status, 307);
    assert.equal(r.headers.get("location"), `${other.url}/elsewhere`);
    assert.equal(r.headers.get("x-edge-cache"), "pass");
    assert.equal((await up.counts())["GET /api/moved"], n, "uncached: each GET asks the upstream");
  }
  assert.deepEqual(await other.seen(), []);
  assert.equal((await up.seen()).find((s) => s.uri === "/api/moved").header["x-api-key"], "secret-edge-key");
});

test("a keyed POST answered 303 records the 303 with its Location and replays it; nothing is sent to the other origin", async () => {
  await up.mode({ path: "/api/orders", status: 303, location: `${other.url}/orders/1` });
  const post = () =>
    manual("/api/orders", { method: "POST", headers: { authorization: "Bearer tok-alice", "idempotency-key": '"k-303"', "content-type": "application/json" }, body: "{}" });
  const first = await post();
  assert.deepEqual([first.status, first.headers.get("location")], [303, `${other.url}/orders/1`]);
  const again = await post();
  assert.deepEqual([again.status, again.headers.get("location"), again.headers.get("idempotency-replayed")], [303, `${other.url}/orders/1`, "true"]);
  assert.equal((await up.counts())["effects k-303"], 1);
  assert.deepEqual(await other.seen(), []);
});

test("a keyless POST answered 302 passes through; nothing is sent to the other origin", async () => {
  await up.mode({ path: "/api/notes", status: 302, location: `${other.url}/notes` });
  const r = await manual("/api/notes", { method: "POST", headers: { authorization: "Bearer tok-alice" }, body: "{}" });
  assert.deepEqual([r.status, r.headers.get("location")], [302, `${other.url}/notes`]);
  assert.deepEqual(await other.seen(), []);
});

test("an absolute Location on the upstream's own origin names the edge's, on GETs, keyed and keyless mutations and their replays", async () => {
  await up.mode({ path: "/api/old", status: 301, location: `${up.url}/api/new?x=1` });
  await up.mode({ path: "/api/carts", status: 201, location: `${up.url}/api/carts/7`, body: "{}" });
  const get = await manual("/api/old");
  assert.deepEqual([get.status, get.headers.get("location")], [301, `${edge.url}/api/new?x=1`]);
  const auth = { authorization: "Bearer tok-alice", "content-type": "application/json" };
  const keyed = () => manual("/api/carts", { method: "POST", headers: { ...auth, "idempotency-key": '"k-cart"' }, body: "{}" });
  for (const r of [await keyed(), await keyed(), await manual("/api/carts", { method: "POST", headers: auth, body: "{}" })]) {
    assert.deepEqual([r.status, r.headers.get("location")], [201, `${edge.url}/api/carts/7`]);
  }
  const relative = "/api/carts/8";
  await up.mode({ path: "/api/carts", status: 201, location: relative, body: "{}" });
  const r = await manual("/api/carts", { method: "POST", headers: auth, body: "{}" });
  assert.equal(r.headers.get("location"), relative, "a relative Location is left as it is");
});

test("auth schemes are case-insensitive: `bearer` in lower case is accepted, for mutations and the admin endpoint", async () => {
  const r = await manual("/api/memos", { method: "POST", headers: { authorization: "bearer tok-alice" }, body: "{}" });
  assert.equal(r.status, 201);
  const m = await fetch(edge.url + "/__edge/metrics?service=api", { headers: { authorization: "bearer admin-secret" } });
  assert.equal(m.status, 200);
});
