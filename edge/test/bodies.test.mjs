// Large bodies in workerd against the counting upstream: the answer to a
// keyed mutation over the ledger's maxBodyBytes streams to its caller and
// settles its key; a request body streams through a pass-through path and
// is refused with 413, unread, on a keyed one. An isolate has 128 MB, and
// Go's wasm memory never shrinks.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { edgeWith } from "./workerd.mjs";

const MiB = 1 << 20;
const t = edgeWith({ passUnmatched: true, services: [{ name: "api", prefix: "/api/" }], tokens: { "tok-alice": "alice" } }, { before, after });

const wasmBytes = async () => (await (await t.edge.admin("/__edge/runtime")).json()).wasmBytes;
const rss = () => Number(readFileSync(`/proc/${t.edge.child.pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)[1]) * 1024;
const effects = async (key) => (await t.up.counts())[`effects ${key}`] ?? 0;

function keyed(path, key, body, init = {}) {
  return fetch(t.edge.url + path, {
    method: "POST",
    headers: { authorization: "Bearer tok-alice", "idempotency-key": `"${key}"`, "content-type": "application/json" },
    body,
    ...init,
  });
}

// zeros is a body of n bytes with no Content-Length: its size is found out while reading.
function zeros(n) {
  let sent = 0;
  return new ReadableStream({
    pull(c) {
      if (sent >= n) return c.close();
      const k = Math.min(MiB, n - sent);
      sent += k;
      c.enqueue(new Uint8Array(k));
    },
  });
}

// upload sends n zero bytes (with a Content-Length when sized) as a client
// that reads an early answer does (curl, browsers). It sends a little more
// than the edge needs to decide (64 KiB with a Content-Length, 1 MiB + 64 KiB
// without), then waits up to 2 s for an answer before it sends the rest: an
// edge that answers early (413) closes the connection, and a client still
// writing meets EPIPE before it has read the answer (a race the wait takes
// away). An edge that reads on gets the rest, and the RSS check catches it.
function upload(path, headers, n, sized) {
  return new Promise((resolve, reject) => {
    const req = request(t.edge.url + path, { method: "POST", headers: sized ? { ...headers, "content-length": n } : headers });
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode, body }));
    });
    req.on("error", (e) => (answered || (req.destroyed && e.code !== "ECONNREFUSED") ? undefined : reject(e)));
    const chunk = Buffer.alloc(64 * 1024);
    const decides = (sized ? 0 : MiB) + chunk.length;
    let sent = 0;
    let waited = false;
    const write = () => {
      while (sent < n && !req.destroyed && !answered) {
        if (sent >= decides && !waited) {
          waited = true;
          return void setTimeout(write, 2000);
        }
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", write);
      }
      if (!answered) req.end();
    };
    write();
  });
}

test("three anonymous 200 MiB POSTs to a pass-through path stream through: workerd never holds them", async (tc) => {
  const before = rss();
  for (const body of [Buffer.alloc(200 * MiB), zeros(200 * MiB), Buffer.alloc(200 * MiB)]) {
    const r = await fetch(t.edge.url + "/site/upload", { method: "POST", body, duplex: "half" });
    assert.deepEqual([r.status, (await r.json()).got], [201, `${200 * MiB} bytes`]);
  }
  const grown = rss() - before;
  tc.diagnostic(`workerd RSS ${(before / MiB).toFixed(0)} → ${((before + grown) / MiB).toFixed(0)} MiB`);
  assert.ok(grown < 64 * MiB, `workerd grew by ${grown} bytes`);
});

test("a keyed POST answered with 8 MiB or 33 MiB: the body streams to its caller; the key is settled and its replay says the body was not recorded", async (tc) => {
  await keyed("/api/warm", "k-warm", "{}");
  const before = await wasmBytes();
  for (const [key, size, chunked] of [["k-8", 8 * MiB, false], ["k-33", 33 * MiB, false], ["k-33c", 33 * MiB, true]]) {
    await t.up.mode({ path: "/api/export", size, chunked });
    const r = await keyed("/api/export", key, "{}");
    assert.deepEqual([r.status, (await r.arrayBuffer()).byteLength], [200, size], key);
    const again = await keyed("/api/export", key, "{}");
    const h = (n) => again.headers.get(n);
    assert.deepEqual([again.status, h("idempotency-replayed"), h("x-edge-body-unrecorded"), (await again.arrayBuffer()).byteLength], [200, "true", "1", 0], key);
    assert.equal(await effects(key), 1, key);
  }
  const grown = (await wasmBytes()) - before;
  tc.diagnostic(`wasm memory ${before} → ${before + grown} bytes`);
  assert.ok(grown < 8 * MiB, `wasm memory grew by ${grown} bytes`);
});

test("a keyed 200 MiB POST gets 413 before its body is read or anything is forwarded, with or without Content-Length", async (tc) => {
  const before = rss();
  const headers = { authorization: "Bearer tok-alice", "content-type": "application/json" };
  for (const [key, sized] of [["k-big", true], ["k-big-chunked", false]]) {
    const r = await upload("/api/upload", { ...headers, "idempotency-key": `"${key}"` }, 200 * MiB, sized);
    assert.deepEqual([r.status, JSON.parse(r.body).error], [413, "body_too_large"], key);
  }
  assert.equal((await t.up.counts())["POST /api/upload"], undefined);
  const grown = rss() - before;
  tc.diagnostic(`workerd RSS ${(before / MiB).toFixed(0)} → ${((before + grown) / MiB).toFixed(0)} MiB`);
  assert.ok(grown < 64 * MiB, `workerd grew by ${grown} bytes`);
  const small = await keyed("/api/upload", "k-small", "{}"); // the bound is the ledger's maxBodyBytes (1 MiB)
  assert.equal(small.status, 201);
});
