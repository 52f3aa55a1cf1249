// The GET cache in workerd: one Durable Object per service, SQLite state,
// against the counting upstream. Time moves through the edge's test clock
// (an offset on Date.now), never by sleeping.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { edgeSuite } from "./workerd.mjs";

const t = edgeSuite(
  [
    { name: "api", prefix: "/api/" }, // the defaults: 30 s fresh, 120 s max-stale, 30/60/120 s backoff
    { name: "rl", prefix: "/rl/" },
    { name: "small", prefix: "/small/", cache: { maxKeys: 3 } },
  ],
  { before, after },
);
const { advance, restart, get, calls } = t;

test("50 concurrent identical GETs make one upstream call", async () => {
  await get("/api/warm"); // the Go instance and the service's object are up
  // The upstream holds its answer 2 s, so that the 50 arrive while it is in
  // flight (on a loaded machine a few may arrive after it: they are hits).
  await t.up.mode({ path: "/api/burst", delayMs: 2_000 });
  const answers = await Promise.all(Array.from({ length: 50 }, () => get("/api/burst")));
  assert.equal(await calls("/api/burst"), 1);
  assert.ok(answers.every((a) => a.status === 200 && a.body === answers[0].body));
  const m = await t.edge.metrics("service=api");
  assert.equal(m.counters.coalesced + (m.counters.hits ?? 0), 49, JSON.stringify(m));
  assert.ok(m.counters.coalesced >= 25, JSON.stringify(m));
});

test("a fresh copy is a hit for its TTL, then the upstream is asked again", async () => {
  const first = await get("/api/fresh");
  assert.equal(first.cache, "miss");
  await advance(29_000);
  const hit = await get("/api/fresh");
  assert.deepEqual([hit.cache, hit.age, hit.collectedAt, hit.body], ["hit", "29", first.collectedAt, first.body]);
  assert.equal(await calls("/api/fresh"), 1);
  await advance(2_000);
  assert.equal((await get("/api/fresh")).cache, "miss");
  assert.equal(await calls("/api/fresh"), 2);
});

test("a failing upstream: stale copies with their age, per-key backoff 30 → 60 s, then 503 past max-stale", async () => {
  const good = await get("/api/flaky");
  await t.up.mode({ path: "/api/flaky", status: 503, body: "down" });
  await advance(31_000);
  let a = await get("/api/flaky");
  assert.deepEqual([a.status, a.cache, a.reason, a.age, a.collectedAt, a.body], [200, "stale", "backoff", "31", good.collectedAt, good.body]);
  assert.equal(await calls("/api/flaky"), 2);
  await advance(29_000); // inside the 30 s window: no call
  a = await get("/api/flaky");
  assert.deepEqual([a.cache, a.age], ["stale", "60"]);
  assert.equal(await calls("/api/flaky"), 2);
  await advance(2_000); // window over: one call, the second failure opens 60 s
  assert.equal((await get("/api/flaky")).cache, "stale");
  assert.equal(await calls("/api/flaky"), 3);
  await advance(50_000);
  assert.equal((await get("/api/flaky")).age, "112");
  assert.equal(await calls("/api/flaky"), 3);
  await advance(9_000); // age 121 s: past max-stale, inside the backoff (until 122 s) → 503, Retry-After = time left
  a = await get("/api/flaky");
  assert.deepEqual([a.status, a.cache, a.reason, a.retryAfter], [503, "unavailable", "backoff", "1"]);
  assert.equal(await calls("/api/flaky"), 3);
  await t.up.mode({ path: "/api/flaky", status: 0 });
  await advance(2_000);
  assert.equal((await get("/api/flaky")).cache, "miss");
});

test("a first failure with no copy backs off 5 s", async () => {
  await t.up.mode({ path: "/api/never", status: 502, body: "bad gateway" });
  const a = await get("/api/never");
  assert.deepEqual([a.status, a.cache, a.retryAfter], [503, "unavailable", "5"]);
  await advance(4_000);
  assert.equal((await get("/api/never")).retryAfter, "1");
  assert.equal(await calls("/api/never"), 1);
  await advance(1_000);
  await get("/api/never");
  assert.equal(await calls("/api/never"), 2);
});

test("a 429 pauses the path it answered (any query), not the service, and the pause survives a workerd restart", async () => {
  await get("/rl/copy");
  await t.up.mode({ path: "/rl/limited", status: 429, retryAfter: "10", body: "slow down" });
  let a = await get("/rl/limited");
  assert.deepEqual([a.status, a.reason, a.retryAfter], [503, "cooldown", "10"]);
  a = await get("/rl/limited?bust=1"); // the same path with another query: not sent
  assert.deepEqual([a.status, a.reason], [503, "cooldown"]);
  assert.equal(await calls("/rl/limited?bust=1"), 0);
  a = await get("/rl/other"); // another path of the service: asked
  assert.deepEqual([a.status, a.cache], [200, "miss"]);
  assert.equal((await get("/rl/copy")).cache, "hit");

  await restart("SIGKILL");
  await advance(3_000);
  a = await get("/rl/limited?bust=2"); // 7 s left, less the real time the restart took
  assert.deepEqual([a.status, a.reason], [503, "cooldown"]);
  assert.ok(Number(a.retryAfter) >= 1 && Number(a.retryAfter) <= 7, a.retryAfter);
  assert.equal(await calls("/rl/limited?bust=2"), 0);

  await advance(7_000); // the pause is over; a second 429 in a row doubles it: 20 s
  a = await get("/rl/limited");
  assert.deepEqual([a.status, a.retryAfter], [503, "20"]);
  await t.up.mode({ path: "/rl/limited", status: 0 });
  await advance(20_000);
  assert.equal((await get("/rl/limited")).status, 200);
  assert.equal(await calls("/rl/limited"), 3);
});

test("stale copies and their metadata survive a restart", async () => {
  const good = await get("/api/kept");
  await t.up.mode({ path: "/api/kept", status: 500, body: "" });
  await restart("SIGTERM");
  await advance(40_000);
  const a = await get("/api/kept"); // 40 s old, plus the real time the restart took
  assert.deepEqual([a.cache, a.collectedAt, a.body], ["stale", good.collectedAt, good.body]);
  assert.ok(Number(a.age) >= 40 && Number(a.age) <= 45, a.age);
});

test("empty results stretch the TTL 30 → 60 (3 in a row) → 120 s (5), and snap back", async () => {
  await t.up.mode({ path: "/api/empty", body: "[]" });
  const script = [
    // [advance ms, upstream calls expected after the GET]
    [0, 1], [31_000, 2], [31_000, 3], // the 3rd empty answer: kept 60 s
    [31_000, 3], [30_000, 4], // the 4th: 60 s
    [61_000, 5], // the 5th: 120 s
    [61_000, 5], [60_000, 6],
  ];
  for (const [ms, want] of script) {
    await advance(ms);
    await get("/api/empty");
    assert.equal(await calls("/api/empty"), want, `after +${ms} ms`);
  }
  await t.up.mode({ path: "/api/empty", body: "[1]" });
  await advance(121_000);
  await get("/api/empty"); // non-empty: back to 30 s
  await advance(31_000);
  await get("/api/empty");
  assert.equal(await calls("/api/empty"), 8);
});

test("at most maxKeys copies per service, the least recently used evicted", async () => {
  for (const k of [1, 2, 3]) await get(`/small/${k}`);
  await get("/small/1"); // used: now 2 is the oldest
  await get("/small/4");
  const keys = await (await t.edge.admin("/__edge/keys?service=small")).json();
  assert.deepEqual(keys.sort(), ["/small/1", "/small/3", "/small/4"]);
  assert.equal((await get("/small/1")).cache, "hit");
  assert.equal((await get("/small/2")).cache, "miss");
  assert.equal((await t.edge.metrics("service=small")).counters.evicted, 2);
});

test("the counters survive a restart", async () => {
  await advance(1_000); // hits are written at most every second, or with the next state change
  await get("/api/fresh");
  const before = await t.edge.metrics("service=api");
  assert.ok(before.counters.hits > 0 && before.counters.upstream > 0 && before.counters.stale > 0);
  await restart("SIGKILL");
  assert.deepEqual(await t.edge.metrics("service=api"), before);
});

test("Vary: Accept keeps one copy per Accept; a Vary on headers the edge does not forward splits nothing; Vary: * is never kept", async () => {
  const as = async (path, accept) => {
    const r = await fetch(t.edge.url + path, { headers: { accept } });
    return { cache: r.headers.get("x-edge-cache"), body: await r.text() };
  };
  await t.up.mode({ path: "/api/variants", vary: "Accept" });
  const csv = await as("/api/variants", "text/csv");
  const json = await as("/api/variants", "application/json");
  assert.deepEqual([csv.cache, JSON.parse(csv.body).accept], ["miss", "text/csv"]);
  assert.deepEqual([json.cache, JSON.parse(json.body).accept], ["miss", "application/json"]);
  assert.deepEqual(await as("/api/variants", "text/csv"), { cache: "hit", body: csv.body });
  assert.deepEqual(await as("/api/variants", "application/json"), { cache: "hit", body: json.body });
  assert.equal(await calls("/api/variants"), 2);

  // Callers with another Accept never join a fetch in flight: the leader's Accept went upstream.
  await t.up.mode({ path: "/api/inflight", vary: "Accept", delayMs: 500 });
  const [a, b] = await Promise.all([as("/api/inflight", "text/csv"), as("/api/inflight", "application/json")]);
  assert.deepEqual([JSON.parse(a.body).accept, JSON.parse(b.body).accept], ["text/csv", "application/json"]);

  await t.up.mode({ path: "/api/cors", vary: "Origin, Accept-Encoding" }); // the edge sends neither from its client
  assert.equal((await as("/api/cors", "text/csv")).cache, "miss");
  assert.equal((await as("/api/cors", "application/json")).cache, "hit");
  assert.equal(await calls("/api/cors"), 1);

  await t.up.mode({ path: "/api/star", vary: "*" });
  assert.equal((await as("/api/star", "text/csv")).cache, "pass");
  assert.equal((await as("/api/star", "text/csv")).cache, "pass");
  assert.equal(await calls("/api/star"), 2);
});
