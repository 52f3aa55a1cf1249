// The fixture server of the fetch contract suite: it serves the page and the
// built module (dist/), answers the cases, and records every request it gets.
//
// Two listeners on 127.0.0.1 (two ports, so two origins) share one handler
// and one log. A case's URL carries its token as a path segment,
// "~<case>~<side>~": the server files the request under "<case>~<side>" and
// writes the token as "~<case>~*~" wherever it echoes the URL, so the native
// run and the module run of a case see the same bytes.
//
// Fixture paths: /<in|out>/[p/<slot>/]~<case>~<side>~/<answer>?<params>
//   answer  echo     JSON describing the request (status `code`, `text`, `ra`)
//           fixed    the bytes "hello\n" (for integrity)
//           big      2.5 MB of fixed bytes (`trickle=1`: streamed over ~3 s)
//           redir    `n` redirects to itself with `code`, then one to `to`
//                    ({T} is the token, {O1}/{O2} the origins)
//           seq      the i-th request to this URL gets the i-th of `codes`
//           reset    the socket is destroyed without an answer
//           sse      text/event-stream, no Content-Length: `n` events (40),
//                    one every `every` ms (250), the first at once
//           slow     `size` bytes (50 MB), `step` bytes (1 MB) every `every`
//                    ms (100); `length=none`: no Content-Length
//   params  d        delay before the answer (ms)
//           cors=1   CORS headers (origin reflected, credentials allowed) and
//                    answers to preflights
//           cc       Cache-Control (default no-store)
//
// Every answer says Connection: close, so no socket is ever reused: Chromium
// resends a request that fails on a reused socket, which would make request
// counts depend on timing.

import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { once } from "node:events";
import { extname, join, normalize } from "node:path";

const root = new URL("../..", import.meta.url).pathname;
const here = new URL(".", import.meta.url).pathname;

export const BIG_SIZE = 2_500_000;
const big = Buffer.alloc(BIG_SIZE);
for (let i = 0; i < BIG_SIZE; i++) big[i] = (i * 31 + (i >> 11)) & 255;

const TOKEN = /~([0-9a-z-]+)~([0-9a-z]+)~/g;
/** The URL with its run token made neutral: "~c1~n~" → "~c1~*~". */
export const neutral = (s) => String(s).replace(TOKEN, "~$1~*~");

const sha = (b) => createHash("sha256").update(b).digest("hex").slice(0, 20);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const TYPES = { ".js": "text/javascript", ".wasm": "application/wasm", ".html": "text/html", ".json": "application/json" };

/**
 * Starts the two listeners. `dist` is the directory of the built module
 * (default: the repository's dist/).
 */
export async function startContractServer({ dist = join(root, "dist") } = {}) {
  const log = new Map(); // "<case>~<side>" → [record]
  const arrivals = new Map(); // "<case>~<side>" → resolvers of sentinel() waiting for its first record
  const counters = new Map(); // full URL → requests so far (answer seq)
  const origins = { o1: "", o2: "" };
  let seq = 0;

  const handler = (origin) => async (req, res) => {
    res.shouldKeepAlive = false;
    const url = new URL(req.url, origins[origin]);
    if (url.pathname.startsWith("/__")) return admin(req, res, url);
    if (url.pathname === "/page.html") return page(res, url);
    if (url.pathname.startsWith("/dist/")) return file(res, dist, url.pathname.slice(6));
    if (url.pathname.startsWith("/contract/")) return file(res, here, url.pathname.slice(10));

    const m = /~([0-9a-z-]+)~([0-9a-z]+)~/.exec(url.pathname);
    if (!m) {
      res.writeHead(404, { "content-type": "text/plain", connection: "close" });
      return res.end("no such fixture\n");
    }
    const id = `${m[1]}~${m[2]}`;
    const answer = url.pathname.slice(m.index + m[0].length).replace(/^\//, "");
    // sent: the answer's body bytes written (sse and slow count them).
    const rec = { seq: seq++, origin, method: req.method, url: neutral(req.url), headers: [], bodyLen: 0, body: "", ended: null, sent: 0 };
    if (!log.has(id)) log.set(id, []);
    log.get(id).push(rec);
    for (const arrived of arrivals.get(id) ?? []) arrived();
    arrivals.delete(id);
    // "closed": the connection ended before the whole answer was written.
    res.on("close", () => (rec.ended ??= res.writableEnded ? "finished" : "closed"));

    const q = url.searchParams;
    if (answer === "reset") {
      rec.ended = "reset";
      rec.headers = headerPairs(req.rawHeaders, "");
      req.socket.destroy();
      return;
    }
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    try {
      await once(req, "end");
    } catch {
      return;
    }
    let body = Buffer.concat(chunks);
    // A multipart boundary is random: it is written as "BOUNDARY" in the record
    // (read from the body's first line: a caller's own Content-Type may not name it).
    const boundary = /^--([-\w]{8,70})\r\n/.exec(body.subarray(0, 80).toString("latin1"))?.[1] ?? "";
    if (boundary) body = Buffer.from(body.toString("latin1").replaceAll(boundary, "BOUNDARY"), "latin1");
    rec.headers = headerPairs(req.rawHeaders, boundary);
    // Firefox's boundaries vary in length: the length is that of the neutral body.
    if (boundary) rec.headers = rec.headers.map(([k, v]) => [k, k === "content-length" ? String(body.length) : v]);
    rec.bodyLen = body.length;
    rec.body = body.length ? sha(body) : "";

    const cors = q.get("cors") === "1";
    const common = { connection: "close" };
    if (cors) {
      common["access-control-allow-origin"] = req.headers.origin ?? "*";
      common["access-control-allow-credentials"] = "true";
      common["access-control-expose-headers"] = "x-odd, x-dup, retry-after, x-answer";
      common.vary = "Origin";
    }
    if (cors && req.method === "OPTIONS" && req.headers["access-control-request-method"]) {
      res.writeHead(204, {
        ...common,
        "access-control-allow-methods": req.headers["access-control-request-method"],
        "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "",
        "access-control-max-age": "0",
      });
      return res.end();
    }

    const delay = Number(q.get("d") ?? 0);
    if (delay > 0) await sleep(delay);
    if (res.destroyed) return;

    const cc = q.get("cc") ?? "no-store";
    const head = { ...common, "cache-control": cc, "x-answer": answer || "none" };
    const n = (counters.get(req.url) ?? 0) + 1;
    counters.set(req.url, n);

    switch (answer) {
      case "echo":
      case "seq": {
        let code = Number(q.get("code") ?? 200);
        if (answer === "seq") {
          const codes = (q.get("codes") ?? "200").split(",").map(Number);
          code = codes[Math.min(n, codes.length) - 1];
        }
        const h = { ...head };
        const ra = q.get("ra");
        if (ra !== null && (code === 429 || code === 503)) h["retry-after"] = ra;
        if (code === 204 || code === 304 || req.method === "HEAD") {
          res.writeHead(code, q.get("text") ?? undefined, { ...h, "x-odd": "a, b" });
          return res.end();
        }
        const echo = JSON.stringify({
          method: req.method,
          url: neutral(req.url),
          // The Idempotency-Key is the one header the module adds by design.
          headers: rec.headers.filter(([k]) => k !== "idempotency-key"),
          body: rec.body,
          bodyLen: rec.bodyLen,
          n: answer === "seq" ? n : undefined,
        });
        const raw = [
          ["content-type", "application/json"],
          ["x-odd", "a, b"],
          ["x-dup", "1"],
          ["x-dup", "2"],
          ["x-empty", ""],
          ...Object.entries(h),
        ].flat();
        res.writeHead(code, q.get("text") ?? undefined, raw);
        return res.end(echo);
      }
      case "fixed":
        res.writeHead(200, { ...head, "content-type": "text/plain" });
        return res.end("hello\n");
      case "big": {
        res.writeHead(200, { ...head, "content-type": "application/octet-stream", "content-length": String(BIG_SIZE) });
        if (req.method === "HEAD") return res.end();
        if (q.get("trickle") !== "1") return res.end(big);
        const step = 50_000;
        for (let i = 0; i < BIG_SIZE && !res.destroyed; i += step) {
          const chunk = big.subarray(i, i + step);
          if (i + step >= BIG_SIZE) return res.end(chunk); // no pause after the last bytes
          if (!res.write(chunk)) await drained(res);
          await sleep(60);
        }
        return;
      }
      case "sse": {
        res.writeHead(200, { ...head, "content-type": "text/event-stream" });
        const n = Number(q.get("n") ?? 40);
        for (let i = 0; i < n && !res.destroyed; i++) {
          if (i) await sleep(Number(q.get("every") ?? 250));
          const event = `id: ${i}\ndata: {"tick":${i}}\n\n`;
          if (res.destroyed) break;
          rec.sent += event.length;
          res.write(event);
        }
        return res.destroyed || res.end();
      }
      case "slow": {
        const size = Number(q.get("size") ?? 50_000_000);
        const step = Number(q.get("step") ?? 1_000_000);
        const h = { ...head, "content-type": "application/octet-stream" };
        if (q.get("length") !== "none") h["content-length"] = String(size);
        res.writeHead(200, h);
        const chunk = Buffer.alloc(step, 120);
        for (let i = 0; i < size && !res.destroyed; i += step) {
          if (i) await sleep(Number(q.get("every") ?? 100));
          if (res.destroyed) break;
          const part = chunk.subarray(0, Math.min(step, size - i));
          rec.sent += part.length;
          if (!res.write(part)) await drained(res);
        }
        return res.destroyed || res.end();
      }
      case "redir": {
        const left = Number(q.get("n") ?? 0);
        let location;
        if (left > 0) {
          const next = new URLSearchParams(q);
          next.set("n", String(left - 1));
          location = `${url.pathname}?${next}`;
        } else {
          location = (q.get("to") ?? "/in/{T}/echo")
            .replaceAll("{T}", m[0])
            .replaceAll("{O1}", origins.o1)
            .replaceAll("{O2}", origins.o2);
        }
        res.writeHead(Number(q.get("code") ?? 302), { ...head, location, "content-type": "text/plain" });
        return res.end("redirecting\n");
      }
      default:
        res.writeHead(404, { ...head, "content-type": "text/plain" });
        return res.end(`unknown answer ${answer}\n`);
    }
  };

  function page(res, url) {
    const slots = Array.from({ length: PAUSE_SLOTS }, (_, i) => `/in/p/${i}/`);
    const scope = ["/in/", ...slots, `${origins.o2}/in/`, ...slots.map((s) => origins.o2 + s)].join(",");
    const extra = url.searchParams.get("stale") === "on" ? ' data-stale="on"' : "";
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", connection: "close" });
    res.end(`<!doctype html>
<html data-origin2="${origins.o2}"><head><meta charset="utf-8"><title>fetch contract</title>
<script src="/dist/gateway-circuit.js" data-wasm="/dist/gateway-circuit.wasm" data-scope="${scope}"${extra}></script>
<script src="/contract/page.js"></script>
</head><body></body></html>
`);
  }

  async function file(res, dir, name) {
    const path = normalize(join(dir, name));
    if (!path.startsWith(dir)) {
      res.writeHead(403, { connection: "close" });
      return res.end();
    }
    try {
      const data = await readFile(path);
      res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream", "cache-control": "no-store", connection: "close" });
      res.end(data);
    } catch {
      res.writeHead(404, { "content-type": "text/plain", connection: "close" });
      res.end(`${name}: not found (run make build)\n`);
    }
  }

  async function admin(req, res, url) {
    if (url.pathname === "/__log" && req.method === "POST") {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const ids = JSON.parse(Buffer.concat(chunks).toString());
      // Wait (up to 6 s) until every recorded request of these cases has ended.
      const deadline = Date.now() + 6000;
      const pending = () => ids.some((id) => (log.get(id) ?? []).some((r) => r.ended === null));
      while (pending() && Date.now() < deadline) await sleep(20);
      const out = {};
      for (const id of ids) out[id] = (log.get(id) ?? []).map((r) => ({ ...r, ended: r.ended ?? "pending" }));
      res.writeHead(200, { "content-type": "application/json", connection: "close" });
      return res.end(JSON.stringify(out));
    }
    res.writeHead(404, { connection: "close" });
    res.end();
  }

  const listen = async (origin) => {
    const srv = createServer({ maxHeaderSize: 1 << 20, keepAliveTimeout: 1 }, handler(origin));
    srv.listen(0, "127.0.0.1");
    await once(srv, "listening");
    origins[origin] = `http://127.0.0.1:${srv.address().port}`;
    return srv;
  };
  const servers = [await listen("o1"), await listen("o2")];
  return {
    o1: origins.o1,
    o2: origins.o2,
    /**
     * Resolves once a request of each of these "<case>~<side>" ids has
     * reached the log: a sentinel the page sent after the requests under
     * test, through the same fetch, so they are in the log before it. Fails,
     * naming the ones missing, if they have not arrived within timeoutMs.
     */
    async sentinel(ids, timeoutMs = 10_000, what = () => "") {
      let timer;
      const arrived = (id) =>
        log.has(id) ? Promise.resolve() : new Promise((resolve) => arrivals.set(id, [...(arrivals.get(id) ?? []), resolve]));
      const late = new Promise((_, reject) => {
        timer = setTimeout(async () => {
          const missing = ids.filter((id) => !log.has(id));
          reject(new Error(`the sentinel request(s) ${missing.join(", ")} did not reach the server within ${timeoutMs} ms${await what()}`));
        }, timeoutMs);
      });
      try {
        await Promise.race([Promise.all(ids.map(arrived)), late]);
      } finally {
        clearTimeout(timer);
      }
    },
    /** The records of these "<case>~<side>" ids, once their requests have ended. */
    async records(ids) {
      const res = await fetch(`${origins.o1}/__log`, { method: "POST", body: JSON.stringify(ids) });
      return res.json();
    },
    async stop() {
      for (const s of servers) {
        s.closeAllConnections();
        s.close();
      }
    },
  };
}

/** Resolves when res can take more bytes, or is gone. */
function drained(res) {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** How many /in/p/<slot>/ scope entries the page has: one per 429 case, so each pause stays its own. */
export const PAUSE_SLOTS = 64;

/** Request headers as sorted [lowercase name, value] pairs, token and boundary made neutral. */
function headerPairs(raw, boundary) {
  const out = [];
  for (let i = 0; i < raw.length; i += 2) {
    let v = neutral(raw[i + 1]);
    if (boundary) v = v.replaceAll(boundary, "BOUNDARY");
    out.push([raw[i].toLowerCase(), v]);
  }
  return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : 1));
}
