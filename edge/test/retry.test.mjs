// A keyed mutation after a transient failure, in workerd against the
// counting upstream, which fails the first request and accepts the next
// and, as an origin ledger would, honours the Idempotency-Key it is sent.
// "Not done" (429, 503) releases the key with its Retry-After; an unknown
// outcome (500, no answer) is asked again with the same key. Either way the
// retry goes through, and the effect happens once.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startEdge, startUpstream } from "./workerd.mjs";

let up, edge;

before(async () => {
  up = await startUpstream();
  edge = await startEdge({
    upstream: up.url,
    upstreamTimeoutMs: 2_000,
    services: [{ name: "api", prefix: "/api/" }],
    tokens: { "tok-alice": "alice" },
  });
});

after(async () => {
  await edge?.close();
  up?.stop();
});

async function post(path, key) {
  const r = await fetch(edge.url + path, {
    method: "POST",
    headers: { authorization: "Bearer tok-alice", "content-type": "application/json", "idempotency-key": `"${key}"` },
    body: JSON.stringify({ item: "book" }),
  });
  return { status: r.status, replayed: r.headers.get("idempotency-replayed"), retryAfter: r.headers.get("retry-after"), body: await r.text() };
}

const effects = async (key) => (await up.counts())[`effects ${key}`] ?? 0;

for (const [name, failure, status] of [
  ["500", { status: 500, body: "oops" }, 500],
  ["503", { status: 503, body: "busy" }, 503],
  ["429 with Retry-After: 1", { status: 429, retryAfter: "1" }, 429],
  ["no answer in 2 s", { delayMs: 3_000 }, 502],
]) {
  test(`a keyed POST that failed once (${name}) goes through on the retry, once`, async () => {
    const path = `/api/orders-${status}`;
    const key = `k-${status}`;
    await up.mode({ path, ...failure, fail: 1, keys: true });
    const first = await post(path, key);
    assert.equal(first.status, status);
    if (status === 429) assert.equal(first.retryAfter, "1", "the upstream's Retry-After is kept");
    const retry = await post(path, key);
    assert.deepEqual([retry.status, retry.replayed], [201, null], "the retry is forwarded, not the failure replayed");
    const third = await post(path, key);
    assert.deepEqual([third.status, third.replayed, third.body], [201, "true", retry.body], "the success is what is recorded");
    assert.equal(await effects(key), 1);
  });
}
