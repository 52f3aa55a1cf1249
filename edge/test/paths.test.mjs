// Encoded slashes in workerd against the counting upstream: a segment that
// names one thing with an encoded "/" (npm's "@scope%2fname", GitLab's
// "group%2Fproject") is forwarded and cached exactly as sent; one that an
// upstream could read as another path is refused before the upstream.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { edgeWith } from "./workerd.mjs";

const t = edgeWith(
  { upstreamHeaders: { "x-api-key": "secret-edge-key" }, services: [{ name: "api", prefix: "/api/" }], tokens: { "tok-alice": "alice" } },
  { before, after },
);

async function get(path) {
  const r = await fetch(t.edge.url + path);
  return { status: r.status, cache: r.headers.get("x-edge-cache"), body: await r.text() };
}

const uris = async () => (await t.up.seen()).map((s) => `${s.method} ${s.uri}`);

test("a%2Fb, @scope%2fname, group%2Fproject reach the upstream as sent, each cached under its exact URL", async () => {
  for (const path of ["/api/a%2Fb", "/api/a%2fb", "/api/a/b", "/api/@scope%2fname", "/api/projects/group%2Fproject/issues?page=2"]) {
    const first = await get(path);
    assert.deepEqual([first.status, first.cache], [200, "miss"], path);
    assert.equal(JSON.parse(first.body).path, path, "the upstream got the path as sent");
    const again = await get(path);
    assert.deepEqual([again.status, again.cache, again.body], [200, "hit", first.body], path);
  }
  assert.deepEqual(await uris(), [
    "GET /api/a%2Fb",
    "GET /api/a%2fb",
    "GET /api/a/b",
    "GET /api/@scope%2fname",
    "GET /api/projects/group%2Fproject/issues?page=2",
  ]);
  const keys = await (await t.edge.admin("/__edge/keys?service=api")).json();
  assert.deepEqual(keys.sort(), ["/api/@scope%2fname", "/api/a%2Fb", "/api/a%2fb", "/api/a/b", "/api/projects/group%2Fproject/issues?page=2"]);
});

test("a keyed POST to group%2Fproject is forwarded as sent", async () => {
  const r = await fetch(t.edge.url + "/api/projects/group%2Fproject/issues", {
    method: "POST",
    headers: { authorization: "Bearer tok-alice", "idempotency-key": '"k-slash"', "content-type": "application/json" },
    body: "{}",
  });
  assert.equal(r.status, 201);
  assert.ok((await uris()).includes("POST /api/projects/group%2Fproject/issues"));
});

test("segments that read as another path once their encoded separators are, and invalid escapes, never reach the upstream", async () => {
  const before = (await uris()).length;
  for (const path of ["/api/..%2fadmin", "/api/a%2f..%2f..%2fadmin", "/api/a%5c..%5cadmin", "/api/x%2f.%2fy", "/api/..;/admin", "/api/a%zz"]) {
    const g = await get(path);
    assert.deepEqual([g.status, JSON.parse(g.body).error], [400, "ambiguous_path"], path);
    const p = await fetch(t.edge.url + path, { method: "POST", headers: { authorization: "Bearer tok-alice", "idempotency-key": '"k-amb"' }, body: "{}" });
    assert.equal(p.status, 400, path);
  }
  assert.equal((await uris()).length, before);
});
