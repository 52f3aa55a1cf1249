// The idempotency ledger in workerd: one Durable Object per principal,
// records in SQLite, against the counting upstream.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startEdge, startUpstream } from "./workerd.mjs";

let up, edge;
const config = () => ({
  upstream: up.url,
  services: [{ name: "api", prefix: "/api/" }],
  tokens: { "tok-alice": "alice", "tok-bob": "bob" },
  upstreamHeaders: { "x-api-key": "edge-key" },
  principalHeader: "x-demo-user",
  jobs: [{ name: "collect", path: "/jobs/collect", steps: 3 }],
  testClock: true,
});

function post(path, body, { key, rawKey, token = "tok-alice", raw = false } = {}) {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  if (key) headers["idempotency-key"] = `"${key}"`;
  if (rawKey) headers["idempotency-key"] = rawKey;
  return fetch(edge.url + path, { method: "POST", headers, body: raw ? body : JSON.stringify(body) }).then(async (r) => ({
    status: r.status, replayed: r.headers.get("idempotency-replayed") === "true", body: await r.text(),
  }));
}

const effects = async (key) => (await up.counts())[`effects ${key}`] ?? 0;

before(async () => {
  up = await startUpstream();
  edge = await startEdge(config());
});

after(async () => {
  await edge?.close();
  up?.stop();
});

test("30 concurrent POSTs with one key make one upstream effect; the duplicates in flight are 409", async () => {
  await up.mode({ path: "/api/orders", delayMs: 300 });
  const answers = await Promise.all(Array.from({ length: 30 }, () => post("/api/orders", { item: "book", qty: 1 }, { key: "k-30" })));
  assert.equal(await effects("k-30"), 1);
  const fresh = answers.filter((a) => a.status === 201 && !a.replayed);
  assert.equal(fresh.length, 1, JSON.stringify(answers.slice(0, 3)));
  const inFlight = (a) => a.status === 409 && JSON.parse(a.body).error === "idempotency_in_flight";
  assert.ok(answers.every((a) => inFlight(a) || (a.status === 201 && a.body === fresh[0].body)), JSON.stringify(answers.slice(0, 3)));
  const retry = await post("/api/orders", { item: "book", qty: 1 }, { key: "k-30" });
  assert.deepEqual([retry.status, retry.replayed, retry.body], [201, true, fresh[0].body]);
  await up.mode({ path: "/api/orders", delayMs: 0 });
});

test("the same body with its keys reordered is a replay; another body is 422", async () => {
  const first = await post("/api/orders", '{"item":"pen","qty":2,"tags":["a","b"]}', { key: "k-order", raw: true });
  assert.deepEqual([first.status, first.replayed], [201, false]);
  const again = await post("/api/orders", '{ "tags": ["a","b"], "qty": 2, "item": "pen" }', { key: "k-order", raw: true });
  assert.deepEqual([again.status, again.replayed, again.body], [201, true, first.body]);
  const other = await post("/api/orders", '{"item":"pen","qty":3,"tags":["a","b"]}', { key: "k-order", raw: true });
  assert.equal(other.status, 422);
  const arrays = await post("/api/orders", '{"item":"pen","qty":2,"tags":["b","a"]}', { key: "k-order", raw: true });
  assert.equal(arrays.status, 422, "arrays keep their order");
  assert.equal(await effects("k-order"), 1);
});

test("keys are per principal, and a forward whose outcome is unknown is asked again with its key", async () => {
  assert.equal((await post("/api/orders", { a: 1 }, { key: "k-shared" })).replayed, false);
  assert.equal((await post("/api/orders", { a: 1 }, { key: "k-shared", token: "tok-bob" })).replayed, false);
  assert.equal(await effects("k-shared"), 2);

  await up.mode({ path: "/api/fails", status: 500, body: "boom" });
  const first = await post("/api/fails", { a: 1 }, { key: "k-fail" });
  await up.mode({ path: "/api/fails", status: 0 });
  const retry = await post("/api/fails", { a: 1 }, { key: "k-fail" });
  assert.deepEqual([first.status, retry.status, retry.replayed], [500, 201, false]);
  assert.equal((await up.counts())["POST /api/fails"], 2, "forwarded again: the origin, which saw the key, decides");
  assert.deepEqual(await post("/api/fails", { a: 1 }, { key: "k-fail" }), { ...retry, replayed: true });
});

test("an unknown or revoked principal gets 401, never a replay", async () => {
  await post("/api/orders", { x: 1 }, { key: "k-revoke", token: "tok-bob" });
  assert.equal((await post("/api/orders", { x: 1 }, { key: "k-revoke", token: "nope" })).status, 401);
  edge.setConfig({ ...config(), tokens: { "tok-alice": "alice" } }); // bob's token revoked
  await edge.restart();
  const a = await post("/api/orders", { x: 1 }, { key: "k-revoke", token: "tok-bob" });
  assert.deepEqual([a.status, a.replayed], [401, false]);
  edge.setConfig(config());
  await edge.restart();
  assert.equal((await post("/api/orders", { x: 1 }, { key: "k-revoke", token: "tok-bob" })).replayed, true);
});

test("kill -9 workerd mid-request and restart: the record is there, no duplicate effect", async () => {
  await up.mode({ path: "/api/slow", delayMs: 5_000 });
  const cut = post("/api/slow", { pay: 10 }, { key: "k-crash" }).catch((e) => e);
  for (let i = 0; i < 200 && (await effects("k-crash")) === 0; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(await effects("k-crash"), 1, "the upstream got the request");
  await edge.stop("SIGKILL");
  assert.ok((await cut) instanceof Error, "the caller lost its answer");
  await up.mode({ path: "/api/slow", delayMs: 0 });
  await edge.start();
  const retry = await post("/api/slow", { pay: 10 }, { key: "k-crash" });
  assert.equal(retry.status, 409);
  assert.match(retry.body, /idempotency_in_doubt/);
  assert.equal(await effects("k-crash"), 1);
  const m = await edge.metrics("principal=alice");
  assert.ok(m.counters.inDoubt >= 1 && m.records > 0, JSON.stringify(m));
  // Other keys go on as usual.
  assert.equal((await post("/api/slow", { pay: 10 }, { key: "k-after" })).status, 201);
});

test("a job under a lease: two concurrent triggers, one run", async () => {
  await up.mode({ path: "/jobs/collect", delayMs: 150 });
  const trigger = () => edge.admin("/__edge/jobs/collect", { method: "POST" }).then(async (r) => ({ status: r.status, ...(await r.json()) }));
  const [a, b] = await Promise.all([trigger(), trigger()]);
  const ran = [a, b].filter((x) => x.ran);
  assert.equal(ran.length, 1, JSON.stringify([a, b]));
  assert.equal(ran[0].steps, 3);
  assert.equal([a, b].find((x) => !x.ran).status, 409);
  assert.equal((await up.counts())["POST /jobs/collect"], 3);
  // Released at the end: the next trigger runs.
  assert.equal((await trigger()).ran, true);
  assert.equal((await up.counts())["POST /jobs/collect"], 6);
});

test("a mutation without an Idempotency-Key is forwarded as it is, each time", async () => {
  const before = (await up.counts()).effects;
  const a = await post("/api/notes", { n: 1 });
  const b = await post("/api/notes", { n: 1 });
  assert.deepEqual([a.status, b.status, b.replayed], [201, 201, false]);
  assert.equal((await up.counts()).effects, before + 2);
  assert.equal((await post("/api/notes", { n: 1 }, { token: "nope" })).status, 401);
});

test("keyed and keyless mutations carry the same credentials upstream; look-alikes of the principal header are dropped", async () => {
  const send = (key) =>
    fetch(edge.url + "/api/creds", {
      method: "POST",
      headers: {
        authorization: "Bearer tok-alice", cookie: "session=s1", "content-type": "application/json", "x-trace": "t1",
        "x-demo-user": "admin", x_demo_user: "admin", ...(key ? { "idempotency-key": key } : {}),
      },
      body: "{}",
    });
  assert.equal((await send('"k-creds"')).status, 201);
  assert.equal((await send()).status, 201);
  const got = (await up.seen()).filter((s) => s.uri === "/api/creds").map((s) => s.header);
  assert.equal(got.length, 2);
  for (const h of got) {
    assert.equal(h.authorization, "Bearer tok-alice");
    assert.equal(h.cookie, "session=s1");
    assert.equal(h["x-trace"], "t1");
    assert.equal(h["x-api-key"], "edge-key");
    assert.equal(h["x-demo-user"], "alice");
    assert.equal(h.x_demo_user, undefined);
  }
  const { "idempotency-key": _, ...keyed } = got[0];
  assert.deepEqual(Object.keys(keyed).sort(), Object.keys(got[1]).sort(), "the same fields either way");
});

test("an unknown job is a 404 with a JSON body", async () => {
  const r = await edge.admin("/__edge/jobs/nope", { method: "POST" });
  assert.equal(r.status, 404);
  assert.deepEqual(await r.json(), { error: "no_job" });
});

test("a bare-token Idempotency-Key (as Stripe's clients send it) is the same key as its sf-string", async () => {
  const first = await post("/api/orders", { sku: 7 }, { rawKey: "order_123" });
  assert.deepEqual([first.status, first.replayed], [201, false]);
  const again = await post("/api/orders", { sku: 7 }, { rawKey: '"order_123"' });
  assert.deepEqual([again.status, again.replayed, again.body], [201, true, first.body]);
  assert.equal(await effects("order_123"), 1);
  const bad = await post("/api/orders", { sku: 7 }, { rawKey: "a, b" });
  assert.deepEqual([bad.status, JSON.parse(bad.body).error], [400, "invalid_idempotency_key"]);
});

test("paths an upstream may read as another one (..%2f, ..;) are refused, never forwarded with the edge's headers", async () => {
  const before = await up.counts();
  for (const path of ["/api/..%2fadmin", "/api/..;/admin", "/api/%2e%2e%2fadmin"]) {
    const g = await fetch(edge.url + path);
    assert.deepEqual([g.status, (await g.json()).error], [400, "ambiguous_path"], path);
    const p = await post(path, { x: 1 }, { key: "k-path" });
    assert.equal(p.status, 400, path);
  }
  assert.deepEqual(await up.counts(), before);
});

// Last: it moves the edge's clock a day on.
test("a record past its retention is not replayed, though no write has pruned it yet", async () => {
  const first = await post("/api/orders", { n: 24 }, { key: "k-retained" });
  await edge.setClock(24 * 3600_000 - 60_000);
  assert.equal((await post("/api/orders", { n: 24 }, { key: "k-retained" })).replayed, true);
  await edge.setClock(24 * 3600_000 + 5 * 60_000);
  const late = await post("/api/orders", { n: 24 }, { key: "k-retained" });
  assert.deepEqual([late.status, late.replayed], [201, false]);
  assert.notEqual(late.body, first.body);
  assert.equal(await effects("k-retained"), 2);
});
