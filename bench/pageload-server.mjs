// The page-load bench's server (bench/pageload.mjs): one page per variant,
// a generated 300 KB app bundle, the files it loads, and a small JSON API,
// on 127.0.0.1 only. Nothing is cached by the browser (no-store).
//
//   /page/<variant>.html  the same page with a different head script; the app
//                         bundle renders the largest element
//   /ssr/<variant>.html   the same, server-rendered: the largest element comes
//                         with the HTML
//   /app.js               the app bundle (sent uncompressed: 300 KB on the wire)
//   /dist/…               the module, .br/.gz precompressed beside it (pack-dist)
//   /bench/reference.js   the seed-design breaker, brotli'd once at start
//   /bench/reference-padded.js  the same, padded with an incompressible comment
//                         to the brotli size of the module's tag file: what
//                         those bytes alone cost the first paint
//   /api/item/<n>         a small JSON answer

import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { once } from "node:events";
import { brotli } from "../tools/sizes.mjs";

const TYPES = { html: "text/html; charset=utf-8", js: "text/javascript; charset=utf-8", wasm: "application/wasm", json: "application/json" };

/**
 * A deterministic bundle of about `bytes` bytes: many small functions that
 * are all compiled and run at start-up (so it costs parse and execute time),
 * then it renders the page's largest element (the LCP) and fires 10 queries
 * through whichever breaker the page loaded.
 */
export function appBundle(bytes = 300 * 1024) {
  let seed = 42;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const word = () => Math.floor(rand() * 36 ** 6).toString(36).padStart(6, "0");
  const fns = [];
  let size = 0;
  for (let i = 0; size < bytes - 2500; i++) {
    const f = `function(a){var x=a^${Math.floor(rand() * 1e6)},s="${word()}${word()}${word()}";for(var i=0;i<${4 + (i % 7)};i++){x=(x*31+s.charCodeAt(i%s.length))|0}return x+s.length}`;
    fns.push(f);
    size += f.length + 1;
  }
  return `(function(){"use strict";
var LCP_STYLE=${JSON.stringify(LCP_STYLE)};
var F=[${fns.join(",")}];
var acc=0;for(var i=0;i<F.length;i++)acc=(acc+F[i](i))|0;
if(!document.getElementById("lcp")){var h=document.createElement("h1");h.id="lcp";h.style.cssText=LCP_STYLE;
h.textContent="Your orders, deliveries and invoices in one place ("+F.length+" modules, "+(acc&255)+")";
document.getElementById("app").appendChild(h)}
var gc=window.gatewayCircuit,rc=window.referenceCircuit;
var f=gc?gc.fetch:rc?rc.fetch:fetch;
var q=[];for(var n=0;n<10;n++)q.push(f("/api/item/"+n).then(function(r){return r.json()}));
Promise.all(q).then(function(items){window.__queries=performance.now();
var ul=document.createElement("ul");items.forEach(function(it){var li=document.createElement("li");li.textContent=it.name;ul.appendChild(li)});
document.getElementById("app").appendChild(ul)},function(e){window.__queriesError=String(e)});
})();
`;
}

const LCP_STYLE = "font-size:64px;line-height:1.1;margin:24px 0;min-height:60vh";

/**
 * The page: a small static header (first paint), the variant's head script,
 * the app bundle deferred; server-rendered (ssr), the largest element too.
 * module-inline renders the tag's file inline (its text as built, as the
 * head entry's standInScript carries it), with data-src for the other files.
 */
function page(variant, dist, tagText, ssr) {
  const lib = {
    none: "",
    module: `<script src="/dist/${dist["gateway-circuit.js"]}" data-wasm="/dist/${dist["gateway-circuit.wasm"]}" data-scope="/api/"></script>`,
    "module-inline": `<script data-src="/dist/" data-wasm="/dist/${dist["gateway-circuit.wasm"]}" data-scope="/api/">${tagText}</script>`,
    "module-eager": `<script src="/dist/${dist["gateway-circuit.js"]}" data-wasm="/dist/${dist["gateway-circuit.wasm"]}" data-scope="/api/" data-load="eager"></script>`,
    reference: `<script src="/bench/reference.js"></script>`,
    "reference-padded": `<script src="/bench/reference-padded.js"></script>`,
  }[variant];
  if (lib === undefined) return null;
  const ready = variant.startsWith("module") ? `<script>gatewayCircuit.ready.then(function(){window.__ready=performance.now()},function(e){window.__readyError=String(e)})</script>` : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>page load: ${variant}</title>
<script>window.__lcp=0;new PerformanceObserver(function(l){var e=l.getEntries();window.__lcp=e[e.length-1].startTime}).observe({type:"largest-contentful-paint",buffered:true})</script>
${lib}${ready}
<script defer src="/app.js"></script>
<style>body{font:16px/1.4 sans-serif;margin:0 24px}header{font-size:14px;padding:8px 0;border-bottom:1px solid #ccc}</style>
</head><body><header>Shop · Orders · Account</header><main id="app">${ssr ? `<h1 id="lcp" style="${LCP_STYLE}">Your orders, deliveries and invoices in one place</h1>` : ""}</main></body></html>
`;
}

/**
 * The script with a comment of pseudo-random base64 appended, grown until its
 * brotli size reaches `target` bytes: the same bytes on the wire, nothing
 * more to run.
 */
function padTo(raw, target) {
  let seed = 7;
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) & 63;
  const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  let pad = "";
  let out = { raw, br: brotli(raw) };
  while (out.br.length < target) {
    for (let i = 0; i < 64; i++) pad += B64[rand()];
    const next = Buffer.concat([raw, Buffer.from(`\n/* ${pad} */\n`)]);
    out = { raw: next, br: brotli(next) };
  }
  return out;
}

export async function startPageLoadServer(root) {
  const dist = JSON.parse(readFileSync(`${root}dist/manifest.json`, "utf8"));
  const app = Buffer.from(appBundle());
  const referenceRaw = readFileSync(`${root}bench/web/reference.js`);
  const reference = { raw: referenceRaw, br: brotli(referenceRaw) };
  const padded = padTo(referenceRaw, readFileSync(`${root}dist/${dist["gateway-circuit.js"]}.br`).length);
  const tagText = readFileSync(`${root}dist/${dist["gateway-circuit.js"]}`, "utf8");

  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    const accepts = (enc) => (req.headers["accept-encoding"] ?? "").split(",").some((e) => e.trim().split(";")[0] === enc);
    const send = (status, type, body, headers = {}) => {
      res.writeHead(status, { "content-type": type, "content-length": body.length, "cache-control": "no-store", ...headers });
      res.end(body);
    };
    const p = url.pathname;
    const shape = /^\/(page|ssr)\/([\w-]+)\.html$/.exec(p);
    if (shape) {
      const html = page(shape[2], dist, tagText, shape[1] === "ssr");
      if (!html) return send(404, "text/plain", Buffer.from("no such variant"));
      // Compressed, as any server sends HTML: what an inline script costs is its brotli size.
      const raw = Buffer.from(html);
      return accepts("br") ? send(200, TYPES.html, brotli(raw), { "content-encoding": "br", vary: "accept-encoding" }) : send(200, TYPES.html, raw);
    }
    if (p === "/app.js") return send(200, TYPES.js, app);
    const ref = { "/bench/reference.js": reference, "/bench/reference-padded.js": padded }[p];
    if (ref) return accepts("br") ? send(200, TYPES.js, ref.br, { "content-encoding": "br", vary: "accept-encoding" }) : send(200, TYPES.js, ref.raw);
    if (p.startsWith("/api/item/")) {
      const n = Number(p.slice(10));
      return send(200, TYPES.json, Buffer.from(JSON.stringify({ id: n, name: `item ${n}`, price: 100 + n })));
    }
    const m = /^\/dist\/([\w.-]+\.(js|wasm))$/.exec(p);
    if (m && existsSync(`${root}dist/${m[1]}`)) {
      const file = `${root}dist/${m[1]}`;
      for (const [enc, ext] of [["br", ".br"], ["gzip", ".gz"]]) {
        if (accepts(enc) && existsSync(file + ext)) {
          return send(200, TYPES[m[2]], readFileSync(file + ext), { "content-encoding": enc, vary: "accept-encoding" });
        }
      }
      return send(200, TYPES[m[2]], readFileSync(file));
    }
    send(404, "text/plain", Buffer.from("not found"));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    appBytes: app.length,
    stop: () => new Promise((r) => server.close(r)),
  };
}
