// Who may pause a service, in workerd against the counting upstream: a 401
// or 403 of one client's GET is that path's answer; only the operator's
// credential check can say the upstream refuses the edge's own key. A 429
// pauses the path it answered, from 5 s.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { edgeSuite } from "./workerd.mjs";

const t = edgeSuite(
  [
    { name: "open", prefix: "/open/" },
    { name: "checked", prefix: "/chk/", cache: { credentialCheck: "/chk/whoami" } },
  ],
  { before, after },
);
const { advance, get, calls } = t;

test("one anonymous GET answered 403 (a missing object on an S3-like origin) pauses nothing", async () => {
  await t.up.mode({ path: "/open/private", status: 403, body: "AccessDenied" });
  for (const n of [1, 2, 3]) {
    const a = await get("/open/private");
    assert.deepEqual([a.status, a.cache, a.body], [403, "pass", "AccessDenied"]);
    assert.equal(await calls("/open/private"), n);
  }
  const other = await get("/open/other"); // another client, another path: served
  assert.deepEqual([other.status, other.cache], [200, "miss"]);
  await t.up.mode({ path: "/open/private", status: 401 });
  assert.equal((await get("/open/private")).cache, "pass");
  assert.equal((await get("/open/other2")).status, 200);
});

test("with a credential check, a 403 pauses the service only when the check is refused too", async () => {
  await t.up.mode({ path: "/chk/private", status: 403, body: "AccessDenied" });
  for (const n of [1, 2, 3]) {
    const a = await get("/chk/private");
    assert.deepEqual([a.status, a.cache], [403, "pass"]);
    assert.equal(await calls("/chk/private"), n);
  }
  assert.equal(await calls("/chk/whoami"), 1, "a passed check is trusted for the fresh TTL: clients cannot make the edge ask it more often");
  assert.equal((await get("/chk/other")).status, 200);

  await t.up.mode({ path: "/chk/whoami", status: 401 }); // the edge's key is revoked
  await advance(31_000);
  let a = await get("/chk/private");
  assert.deepEqual([a.status, a.cache, a.reason, a.retryAfter], [503, "unavailable", "cooldown", "5"]);
  assert.equal(await calls("/chk/whoami"), 2);
  a = await get("/chk/never-asked"); // every key of the service is paused
  assert.deepEqual([a.status, a.reason], [503, "cooldown"]);
  assert.equal(await calls("/chk/never-asked"), 0);
  assert.equal((await get("/open/other")).status, 200, "other services go on");
});

test("cache-busting anonymous GETs answered 429 without Retry-After pause that path alone: 5, 10, 20, 40, 80 s", async () => {
  await t.up.mode({ path: "/open/search", status: 429, body: "Too Many Requests" }); // as AWS API Gateway throttles
  const pauses = [];
  for (let i = 0; i < 5; i++) {
    const a = await get(`/open/search?q=bust${i}`);
    assert.deepEqual([a.status, a.reason], [503, "cooldown"]);
    pauses.push(Number(a.retryAfter));
    const burst = await Promise.all([1, 2, 3].map((n) => get(`/open/search?q=bust${i}-${n}`)));
    assert.ok(burst.every((b) => b.status === 503), "the path is paused for every query");
    const other = await get(`/open/items?i=${i}`); // another client, another path: served
    assert.deepEqual([other.status, other.cache], [200, "miss"]);
    await advance(pauses[i] * 1000);
  }
  assert.deepEqual(pauses, [5, 10, 20, 40, 80]);
  const counts = await t.up.counts();
  const searches = Object.entries(counts).filter(([k]) => k.startsWith("GET /open/search"));
  assert.equal(searches.reduce((n, [, c]) => n + c, 0), 5, "one upstream request per pause");
});
