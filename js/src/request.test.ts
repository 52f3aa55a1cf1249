import assert from "node:assert/strict";
import { test } from "node:test";
import { describe, readCall } from "./request.js";

const base = "http://app.test/page";

test("a plain GET is plain; any option or header is not", () => {
  assert.equal(describe("/api/x", undefined, base).plain, true);
  assert.equal(describe("/api/x", { signal: new AbortController().signal }, base).plain, true);
  assert.equal(describe("/api/x", { mode: "no-cors" }, base).plain, false);
  assert.equal(describe("/api/x", { headers: { a: "b" } }, base).plain, false);
  assert.equal(describe(new Request("http://app.test/api/x"), undefined, base).plain, false);
});

test("every option that can change the answer is written down, defaults are not", () => {
  const d = describe("/api/x", { mode: "no-cors", credentials: "omit", redirect: "manual", cache: "no-store", referrerPolicy: "no-referrer", integrity: "sha256-x", priority: "high", keepalive: true }, base);
  for (const line of [":mode: no-cors", ":credentials: omit", ":redirect: manual", ":cache: no-store", ":referrerPolicy: no-referrer", ":integrity: sha256-x", ":priority: high", ":keepalive: true"]) {
    assert.ok(d.headers.includes(line + "\n"), line);
  }
  assert.equal(describe("/api/x", { mode: "cors", credentials: "same-origin", redirect: "follow" }, base).headers, "");
  const r = describe(new Request("http://app.test/api/x", { redirect: "manual", headers: { "X-Tenant": "a" } }), undefined, base);
  assert.equal(r.headers, "x-tenant: a\n:redirect: manual\n");
});

test("what fetch would reject throws here (the facade then hands it to fetch)", () => {
  assert.throws(() => describe("/api/x", { headers: { a: "b\nc" } }, base));
  assert.throws(() => describe("/api/x", { headers: 5 as unknown as HeadersInit }, base));
  assert.throws(() => describe("/api/x", { signal: {} as AbortSignal }, base));
  assert.throws(() => describe("http://[bad", undefined, base));
  assert.throws(() => describe({ toString: () => { throw new Error("no") } } as unknown as string, undefined, base));
});

test("readCall: null for what fetch must take as it is (it rejects it, or the signal is aborted)", () => {
  const aborted = AbortSignal.abort();
  assert.equal(readCall("/api/x", { headers: { a: "b\nc" } }, base), null);
  assert.equal(readCall("/api/x", { signal: aborted }, base), null);
  assert.equal(readCall("/api/x", undefined, base)?.url, "http://app.test/api/x");
});

test("bodies: a Request's body needs a clone per send; a stream in init can go once", () => {
  const req = new Request("http://app.test/api/x", { method: "POST", body: "x" });
  assert.equal(describe(req, undefined, base).requestBody, true);
  const stream = new ReadableStream();
  const d = describe("/api/x", { method: "POST", body: stream, duplex: "half" } as RequestInit, base);
  assert.equal(d.oneShotBody, true);
  assert.equal(d.method, "POST");
});
