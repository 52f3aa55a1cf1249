import assert from "node:assert/strict";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { copyAsRead } from "./bodycopy.js";

// A real server and Node's fetch: the copy must stop what the network does,
// so the server's side of the connection is the ground truth.
interface Sent {
  sent: number;
  finished: boolean;
  /** Resolves when the server's side of the answer is over. */
  over: Promise<void>;
}
const answers = new Map<string, Sent>();
let base = "";
const server = createServer(async (req, res: ServerResponse) => {
  const url = new URL(req.url ?? "/", "http://x");
  let over = () => {};
  const rec: Sent = { sent: 0, finished: false, over: new Promise((r) => (over = r)) };
  answers.set(url.pathname, rec);
  const n = Number(url.searchParams.get("n") ?? 100);
  const headers: Record<string, string> = { "content-type": url.searchParams.get("type") ?? "application/octet-stream" };
  if (url.searchParams.get("length") !== "none") headers["content-length"] = String(n);
  res.writeHead(200, headers);
  res.on("close", () => {
    rec.finished = res.writableFinished;
    over();
  });
  const chunk = Number(url.searchParams.get("chunk") ?? n);
  for (let i = 0; i < n && !res.destroyed; i += chunk) {
    const part = Buffer.alloc(Math.min(chunk, n - i), i & 255);
    rec.sent += part.length;
    res.write(part);
    if (url.searchParams.has("slow")) await new Promise((r) => setTimeout(r, 20));
  }
  if (!res.destroyed) res.end();
});
before(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

/** What the server sent on path, once its answer is over. */
async function ended(path: string): Promise<Sent> {
  const rec = answers.get(path)!;
  await rec.over;
  return rec;
}

function copyOf(res: Response, limit = 1 << 20) {
  const calls: (ArrayBuffer | null)[] = [];
  const out = copyAsRead(res, limit, (b) => calls.push(b));
  return { out, calls };
}

test("the copy is what the caller read, and the Response still says where it came from", async () => {
  const res = await fetch(`${base}/whole?n=3000&chunk=1000`);
  const { out, calls } = copyOf(res);
  assert.equal(calls.length, 0, "nothing is read before the caller reads");
  assert.equal(out.url, `${base}/whole?n=3000&chunk=1000`);
  assert.equal(out.type, res.type);
  assert.equal(out.redirected, false);
  assert.equal(out.headers, res.headers);
  const twin = out.clone();
  assert.equal(twin.url, out.url, "a clone says so too");
  const [a, b] = await Promise.all([out.arrayBuffer(), twin.arrayBuffer()]);
  assert.equal(a.byteLength, 3000);
  assert.deepEqual(new Uint8Array(b), new Uint8Array(a));
  assert.equal(calls.length, 1);
  assert.deepEqual(new Uint8Array(calls[0]!), new Uint8Array(a));
});

test("the caller's cancel reaches the network at once, and there is no copy", async () => {
  const res = await fetch(`${base}/cancel?n=5000000&chunk=10000&slow=1`);
  const { out, calls } = copyOf(res, 10 << 20);
  const reader = out.body!.getReader();
  assert.ok(!(await reader.read()).done);
  await reader.cancel(); // resolves: no branch of a tee waits for another
  const rec = await ended("/cancel");
  assert.equal(rec.finished, false, "the server could not finish: the connection was closed");
  assert.ok(rec.sent < 5_000_000, `${rec.sent} bytes sent`);
  assert.deepEqual(calls, [null]);
});

test("past its limit the copy is dropped, and the body still passes whole", async () => {
  const res = await fetch(`${base}/long?n=5000&chunk=100&length=none`);
  const { out, calls } = copyOf(res, 1000);
  assert.equal((await out.arrayBuffer()).byteLength, 5000);
  assert.deepEqual(calls, [null]);
});

test("an event stream and a declared length over the limit are not copied at all", async () => {
  for (const q of ["n=100&type=text/event-stream", "n=2000"]) {
    const res = await fetch(`${base}/nocopy?${q}`);
    const { out, calls } = copyOf(res, 1000);
    assert.equal(out, res, "handed out as it came");
    assert.deepEqual(calls, [null]);
    await res.arrayBuffer();
  }
});

test("an error of the network reaches the body methods as it is (an abort's reason), and there is no copy", async () => {
  const ac = new AbortController();
  const res = await fetch(`${base}/aborted-text?n=1000000&chunk=1000&slow=1`, { signal: ac.signal });
  const { out, calls } = copyOf(res, 10 << 20);
  const reason = new DOMException("gone", "AbortError");
  const text = out.text();
  setTimeout(() => ac.abort(reason), 20);
  await assert.rejects(text, (e) => e === reason);
  assert.deepEqual(calls, [null]);
  await assert.rejects(out.arrayBuffer(), TypeError, "a used body");
});

test("the body methods parse as the engine does", async () => {
  const res = await fetch(`${base}/parse?n=2&type=application/json`);
  const { out } = copyOf(res);
  await assert.rejects(out.clone().json(), SyntaxError, "two zero bytes are not JSON");
  assert.equal((await out.blob()).type, "application/json");
});

test("an error of the network reaches the reader as it is, and there is no copy", async () => {
  const ac = new AbortController();
  const res = await fetch(`${base}/aborted?n=1000000&chunk=1000&slow=1`, { signal: ac.signal });
  const { out, calls } = copyOf(res, 10 << 20);
  const reader = out.body!.getReader();
  await reader.read();
  const reason = new DOMException("gone", "AbortError");
  ac.abort(reason);
  await assert.rejects(
    (async () => {
      for (;;) if ((await reader.read()).done) return;
    })(),
    (e) => e === reason || (e as Error).name === "AbortError",
  );
  assert.deepEqual(calls, [null]);
});

test("a body dropped unread ends its copy once collected", { skip: typeof globalThis.gc !== "function" && "needs node --expose-gc" }, async () => {
  const calls: (ArrayBuffer | null)[] = [];
  await (async () => {
    const res = await fetch(`${base}/unread?n=1000`);
    copyAsRead(res, 1 << 20, (b) => calls.push(b));
  })();
  for (let i = 0; i < 20 && calls.length === 0; i++) {
    globalThis.gc!();
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.deepEqual(calls, [null]);
});
