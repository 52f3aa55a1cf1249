// A reverse proxy in front of a test server that puts a small script at the
// top of every HTML page it passes, before the page's own scripts: the hook
// that records a page's errors, then the init scripts of the context that
// asked for the page. WebKit's driver has no way to run a script before a
// page's own, so this is how all three engines get one, the same way.
// Everything else is passed through untouched (bodies, encodings, status).

import http from "node:http";
import { listenLoopback } from "../loopback.mjs";

/** The cookie that names a context's init scripts; removed before the request goes on. */
const CONTEXT_COOKIE = "e2e_ctx";

/** Init scripts by context token (see bindPath). */
const initScripts = new Map();

/** Registers the sources a context's pages run first; returns its token. */
export function registerInitScripts(token, sources) {
  initScripts.set(token, sources);
}

export function forgetInitScripts(token) {
  initScripts.delete(token);
}

/** A page of the proxy's origin that ties the browser context to its token (a cookie) and shows nothing. */
export const bindPath = (token) => `/__e2e/bind?ctx=${encodeURIComponent(token)}`;

/**
 * Records uncaught errors, unhandled rejections and console.error calls in
 * window.__e2eProblems (not enumerable), for page.problems() to drain.
 */
function hook() {
  const problems = [];
  Object.defineProperty(window, "__e2eProblems", { value: problems });
  const text = (v) => (v instanceof Error ? `${v.name}: ${v.message}` : String(v));
  window.addEventListener("error", (e) => problems.push(`pageerror: ${e.message}`));
  window.addEventListener("unhandledrejection", (e) => problems.push(`pageerror: ${text(e.reason)}`));
  const consoleError = console.error;
  console.error = function (...args) {
    problems.push(`console.error: ${args.map(text).join(" ")}`);
    return consoleError.apply(this, args);
  };
}

function headScript(token) {
  const scripts = [`(${hook})();`, ...(initScripts.get(token) ?? [])];
  // Each in its own element, so one that throws does not stop the others (as in Playwright).
  return scripts.map((s) => `<script>${s.replaceAll("</script", "<\\/script")}</script>`).join("");
}

function inject(html, token) {
  const head = /<head(\s[^>]*)?>/i.exec(html);
  const at = head ? head.index + head[0].length : (/<!doctype[^>]*>/i.exec(html)?.[0].length ?? 0);
  return html.slice(0, at) + headScript(token) + html.slice(at);
}

/** The context token from a Cookie header, and the header without it. */
function takeToken(cookieHeader = "") {
  let token = null;
  const rest = cookieHeader
    .split(";")
    .map((c) => c.trim())
    .filter((c) => {
      if (!c.startsWith(`${CONTEXT_COOKIE}=`)) return c !== "";
      token = decodeURIComponent(c.slice(CONTEXT_COOKIE.length + 1));
      return false;
    });
  return { token, cookie: rest.join("; ") };
}

/** Starts the proxy on a free loopback port in front of upstream (an http:// origin). */
export async function injectingProxy(upstream) {
  const target = new URL(upstream);
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    const { token, cookie } = takeToken(req.headers.cookie);
    if (req.url.startsWith("/__e2e/bind?")) {
      const ctx = new URL(req.url, "http://x").searchParams.get("ctx") ?? "";
      res.writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-store",
        "set-cookie": `${CONTEXT_COOKIE}=${encodeURIComponent(ctx)}; Path=/; SameSite=Lax`,
      });
      res.end("<!doctype html><title>e2e</title>");
      return;
    }
    const headers = { ...req.headers, host: target.host };
    if (cookie) headers.cookie = cookie;
    else delete headers.cookie;
    const up = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent }, (upRes) => {
      const type = upRes.headers["content-type"] ?? "";
      if (!type.startsWith("text/html")) {
        res.writeHead(upRes.statusCode, upRes.headers);
        upRes.pipe(res);
        return;
      }
      const chunks = [];
      upRes.on("data", (c) => chunks.push(c));
      upRes.on("end", () => {
        if (upRes.headers["content-encoding"]) {
          res.writeHead(502, { "content-type": "text/plain" }).end("e2e proxy: cannot inject into an encoded HTML page");
          return;
        }
        const body = Buffer.from(inject(Buffer.concat(chunks).toString("utf8"), token));
        const out = { ...upRes.headers, "content-length": String(body.length) };
        delete out["transfer-encoding"];
        res.writeHead(upRes.statusCode, out).end(body);
      });
    });
    up.on("error", (e) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end(`e2e proxy: ${e.message}`);
    });
    // A request the browser gives up on (an abort, a reload) is given up on upstream too.
    res.on("close", () => {
      if (!res.writableFinished) up.destroy();
    });
    req.pipe(up);
  });
  const { url, stop } = await listenLoopback(server);
  return {
    url,
    stop: async () => {
      agent.destroy();
      await stop();
    },
  };
}
