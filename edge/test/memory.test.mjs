// Memory and the byte budget, in workerd against the counting upstream: a
// body too large to keep is never read into Go's memory (wasm memory never
// shrinks), and a body the database refuses takes no room in the budget.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startEdge, startUpstream } from "./workerd.mjs";

let up, edge;
const MiB = 1 << 20;

before(async () => {
  up = await startUpstream();
  edge = await startEdge({
    upstream: up.url,
    services: [
      { name: "big", prefix: "/big/" }, // maxBodyBytes: 1 MiB
      // Bodies up to 16 MiB are read, but a Durable Object's SQLite refuses a value over 2 MB.
      { name: "store", prefix: "/store/", cache: { maxBodyBytes: 16 * MiB, maxBytes: 24 * MiB } },
    ],
  });
});

after(async () => {
  await edge?.close();
  up?.stop();
});

const wasmBytes = async () => (await (await edge.admin("/__edge/runtime")).json()).wasmBytes;

async function get(path) {
  const r = await fetch(edge.url + path);
  return { status: r.status, cache: r.headers.get("x-edge-cache"), coalesced: r.headers.get("x-edge-coalesced"), length: (await r.arrayBuffer()).byteLength };
}

test("an answer over maxBodyBytes streams through, uncached, and never into Go's memory", async () => {
  await get("/big/warm");
  const before = await wasmBytes();
  await up.mode({ path: "/big/huge", size: 40 * MiB });
  await up.mode({ path: "/big/chunked", size: 40 * MiB, chunked: true }); // no Content-Length: found out while reading
  for (const path of ["/big/huge", "/big/chunked", "/big/huge"]) {
    assert.deepEqual(await get(path), { status: 200, cache: "pass", coalesced: null, length: 40 * MiB }, path);
  }
  assert.equal((await up.counts())["GET /big/huge"], 2, "uncached");
  const grown = (await wasmBytes()) - before;
  assert.ok(grown < 8 * MiB, `wasm memory grew by ${grown} bytes`);
  const small = await get("/big/small");
  assert.deepEqual([small.cache, (await get("/big/small")).cache], ["miss", "hit"]);
});

test("callers that waited on a fetch whose answer is too large to share each get the whole body", async () => {
  await up.mode({ path: "/big/shared", size: 3 * MiB, delayMs: 500 });
  const answers = await Promise.all(Array.from({ length: 3 }, () => get("/big/shared")));
  for (const a of answers) assert.deepEqual([a.status, a.cache, a.length], [200, "pass", 3 * MiB]);
});

test("an answer the database refuses to store takes no room in the budget", async () => {
  assert.equal((await get("/store/keep")).cache, "miss");
  await up.mode({ path: "/store/a", size: 10 * MiB });
  await up.mode({ path: "/store/b", size: 10 * MiB });
  await up.mode({ path: "/store/c", size: 10 * MiB });
  for (const p of ["/store/a", "/store/b", "/store/c"]) assert.equal((await get(p)).length, 10 * MiB);
  assert.equal((await get("/store/keep")).cache, "hit", "the real copy was not evicted");
  const m = await edge.metrics("service=store");
  assert.deepEqual([m.keys, m.counters.evicted ?? 0], [1, 0], JSON.stringify(m));
});
