// A tiny upstream for the nginx scenarios (e2e/nginx.mjs), on 127.0.0.1:
//
//   ok     200 with a small JSON body, or the answer of forwardTo when given
//   hang   accepts the request and never answers (nginx's proxy_read_timeout → 504)
//   flaky  like ok, but a seeded fraction (failRate, default 0.1) of the
//          requests answers 500: a healthy API with random failures
//
// The PRNG is seeded, so a run is repeatable; which requests fail depends
// only on their order of arrival.

import { createServer } from "node:http";
import { listenLoopback } from "./loopback.mjs";

/** mulberry32: a small seeded PRNG, floats in [0, 1). */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Starts the upstream. Returns {url, counts: {requests, failed}, stop}.
 * @param {{mode: "ok" | "hang" | "flaky", failRate?: number, seed?: number, forwardTo?: string}} options
 */
export async function startUpstream({ mode, failRate = 0.1, seed = 1, forwardTo }) {
  if (!["ok", "hang", "flaky"].includes(mode)) throw new Error(`upstream: unknown mode ${mode}`);
  const random = prng(seed);
  const counts = { requests: 0, failed: 0 };
  const hanging = new Set();
  const server = createServer(async (req, res) => {
    counts.requests++;
    if (mode === "hang") {
      hanging.add(res);
      res.on("close", () => hanging.delete(res));
      return;
    }
    if (mode === "flaky" && random() < failRate) {
      counts.failed++;
      return json(res, 500, { error: "flaky", path: req.url });
    }
    if (!forwardTo) return json(res, 200, { ok: true, path: req.url, n: counts.requests });
    try {
      const body = req.method === "GET" || req.method === "HEAD" ? undefined : await readAll(req);
      const answer = await fetch(forwardTo + req.url, { method: req.method, headers: forwarded(req.headers), body });
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      res.end(Buffer.from(await answer.arrayBuffer()));
    } catch (e) {
      json(res, 502, { error: "forward failed", message: String(e) });
    }
  });
  const { url, stop } = await listenLoopback(server);
  return {
    url,
    counts,
    async stop() {
      for (const res of hanging) res.destroy();
      await stop();
    },
  };
}

function json(res, status, body) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

async function readAll(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return Buffer.concat(chunks);
}

/** The request headers worth forwarding (fetch refuses hop-by-hop ones). */
function forwarded(headers) {
  const out = {};
  for (const [k, v] of Object.entries(headers)) {
    if (!["host", "connection", "content-length", "transfer-encoding", "keep-alive"].includes(k)) out[k] = v;
  }
  return out;
}
