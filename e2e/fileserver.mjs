// A tiny loopback server for tests that need no demo gateway: a fake API under
// /api/ (the test's own handler), then pages held in memory, then files from
// one directory, each with the type browsers insist on (application/wasm).

import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join } from "node:path";
import { listenLoopback } from "./loopback.mjs";

const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };

/**
 * api(path, req, res) answers /api/*; pages maps a path to html, or to
 * {html, headers} (e.g. a CSP); the rest comes from dir ("/" is
 * index.html). Resolves to {url, close}.
 */
export async function startFileServer({ dir, api, pages = new Map() }) {
  const server = createServer((req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    if (path.startsWith("/api/")) return api(path, req, res);
    if (pages.has(path)) {
      const page = pages.get(path);
      const { html, headers } = typeof page === "string" ? { html: page, headers: {} } : page;
      return res.writeHead(200, { "content-type": TYPES[".html"], ...headers }).end(html);
    }
    const file = join(dir, path === "/" ? "index.html" : path);
    if (!file.startsWith(join(dir, "/")) || !existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-cache" }).end(readFileSync(file));
  });
  const { url, stop } = await listenLoopback(server);
  return { url, close: stop };
}
