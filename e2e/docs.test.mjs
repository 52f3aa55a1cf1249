// Every html and js code block in README.md, docs/*.md and js/README.md runs
// as written, in Chromium, against the built module (dist/): a snippet that
// throws, logs a console error or never gets past a syntax error fails here.
//
//   ```html   a page body: put in a page as it is (its own <script> tags; a
//             fragment without the module's tag gets it first, as the README
//             says it must come first)
//   ```js     a module: bundled like an app bundles it (imports resolved from
//             node_modules, `@gatewaycircuit/browser` from js/src) and run as
//             <script type="module"> after the module's script tag
//   ```nginx  an http{}-level config (a rate limiter): run by Debian's nginx in
//             front of a fake API, with `listen 8080;` moved to a free port;
//             a burst must be rejected with 429 + Retry-After, and with the
//             block's limit_req_status line taken out, with nginx's own 503
//   ```html norun / ```js norun   shown, not run (keep these rare: say why nearby)
//   ```ts file=PATH   a whole file shown in the docs: must equal PATH (also
//             checked in demo/nextjs/README.md, whose other blocks are excerpts)
//
// Each block runs twice: with the API answering 200, then 502, so code that
// only runs once the circuit arms (an overlay) runs too. After the block, the
// page makes one request through the module, as the app's own queries would;
// then every button on the page is clicked. The fake API counts its requests.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { build } from "esbuild";
import { startFileServer } from "./fileserver.mjs";
import { freePort, launchBrowser, sleep, watchedPage } from "./harness.mjs";

const root = new URL("..", import.meta.url).pathname;
const RUNNABLE = new Set(["html", "js", "javascript"]);

/** The fenced blocks of a markdown file: {file, line, lang, norun, code}. */
function codeBlocks(file) {
  const lines = readFileSync(join(root, file), "utf8").split("\n");
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, info] = open;
    const body = [];
    let j = i + 1;
    for (; j < lines.length && !lines[j].trimStart().startsWith(fence); j++) body.push(lines[j].slice(indent.length));
    const [lang = "", ...flags] = info.trim().split(/\s+/);
    const copyOf = flags.find((f) => f.startsWith("file="))?.slice("file=".length) ?? null;
    blocks.push({ file, line: i + 1, lang: lang.toLowerCase(), norun: flags.includes("norun"), copyOf, code: body.join("\n") });
    i = j;
  }
  return blocks;
}

const files = ["README.md", "js/README.md", ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
const blocks = files.flatMap(codeBlocks);
const runnable = blocks.filter((b) => RUNNABLE.has(b.lang) && !b.norun);
const nginxBlocks = blocks.filter((b) => b.lang === "nginx" && !b.norun);
const copies = [...blocks, ...codeBlocks("demo/nextjs/README.md")].filter((b) => b.copyOf);
const NGINX = process.env.NGINX ?? "/usr/sbin/nginx";

const pages = new Map(); // path -> html
let mode = 200;
let apiRequests = 0;
let server;
let base = "";
let browser;

/** A js block, bundled as an app would bundle it. */
async function bundle(block) {
  const out = await build({
    stdin: { contents: block.code, resolveDir: root, sourcefile: `${block.file}:${block.line}.js`, loader: "js" },
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    alias: { "@gatewaycircuit/browser": join(root, "js/src/index.ts") },
    logLevel: "silent",
  });
  return out.outputFiles[0].text;
}

before(async () => {
  for (const f of ["gateway-circuit.js", "gateway-circuit.wasm"]) assert.ok(existsSync(join(root, "dist", f)), `dist/${f}: run make build first`);
  const tag = `<script src="/gateway-circuit.js" data-scope="/api/"></script>`;
  const appQuery = `<script>gatewayCircuit.fetch("/api/docs-app-query");</script>`;
  for (const [i, b] of runnable.entries()) {
    const body =
      b.lang === "html"
        ? `${b.code.includes("gateway-circuit.js") ? "" : tag}\n${b.code}\n${appQuery}`
        : `${tag}\n<script type="module">\n${(await bundle(b)).replaceAll("</script", "<\\/script")}\n</script>\n${appQuery}`;
    pages.set(`/block/${i}`, `<!doctype html><html><head><title>${b.file}:${b.line}</title></head><body>\n${body}\n</body></html>`);
  }
  server = await startFileServer({
    dir: join(root, "dist"),
    pages,
    api: (path, req, res) => {
      apiRequests++;
      if (mode !== 200) return res.writeHead(mode, { "content-type": "text/html" }).end(`<h1>${mode}</h1>`);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id: 1, name: "Kim", path }));
    },
  });
  base = server.url;
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

describe("the code blocks in the docs", () => {
  test("there are blocks to run, and the ones marked norun are few", () => {
    assert.ok(runnable.some((b) => b.lang === "html"), "an html block (the quick start)");
    assert.ok(runnable.some((b) => b.lang !== "html"), "a js block");
    const norun = blocks.filter((b) => RUNNABLE.has(b.lang) && b.norun);
    assert.ok(norun.length <= runnable.length, `norun ${norun.map((b) => `${b.file}:${b.line}`).join(", ")} vs ${runnable.length} run`);
  });

  for (const [i, b] of runnable.entries()) {
    test(`${b.file}:${b.line} (${b.lang}) runs without an error, with the API up and with it answering 502`, async () => {
      for (const status of [200, 502]) {
        mode = status;
        apiRequests = 0;
        const context = await browser.newContext();
        const { page, problems } = await watchedPage(context);
        await page.goto(`${base}/block/${i}`, { waitUntil: "networkidle" });
        const state = await page.evaluate(async () => {
          await window.gatewayCircuit.ready;
          return { status: window.gatewayCircuit.status, armed: window.gatewayCircuit.read() };
        });
        assert.equal(state.status, "ready", `with ${status}: the module runs`);
        assert.ok(apiRequests > 0, `with ${status}: the snippet called the API`);
        if (status === 502) assert.equal(state.armed?.httpStatus, 502, "the 502 armed the circuit");
        for (const button of await page.locator("button").all()) if (await button.isVisible()) await button.click();
        await sleep(200);
        assert.deepEqual(problems, [], `with ${status}`);
        await context.close();
      }
    });
  }
});

/** Runs nginx with an http{}-level block (upstream `api` = apiUrl); resolves to {url, stop}. */
async function startNginx(block, apiUrl) {
  const dir = mkdtempSync(join(tmpdir(), "gatewaycircuit-docs-nginx-"));
  chmodSync(dir, 0o755); // as root, the workers run as nobody
  mkdirSync(join(dir, "tmp"));
  const port = await freePort();
  const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((t) => `${t}_temp_path ${join(dir, "tmp", t)};`).join("\n  ");
  writeFileSync(
    join(dir, "nginx.conf"),
    `worker_processes 1;
pid ${join(dir, "nginx.pid")};
${process.getuid?.() === 0 ? "user nobody nogroup;" : ""}
events { worker_connections 256; }
http {
  access_log off;
  ${temp}
  upstream api { server ${new URL(apiUrl).host}; }
${block.replace("listen 8080;", `listen 127.0.0.1:${port};`)}
}
`,
  );
  const proc = spawn(NGINX, ["-p", dir, "-c", join(dir, "nginx.conf"), "-e", join(dir, "error.log"), "-g", "daemon off;"], { stdio: "ignore" });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill("SIGTERM");
      await once(proc, "exit");
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; ; i++) {
    if (proc.exitCode !== null) throw new Error(`nginx exited: ${readFileSync(join(dir, "error.log"), "utf8")}`);
    try {
      await fetch(`${url}/`); // outside /api/: spends no rate
      return { url, stop };
    } catch (e) {
      if (i > 200) {
        await stop();
        throw e;
      }
      await sleep(25);
    }
  }
}

describe("whole files shown in the docs", () => {
  test("each copy equals its file", () => {
    assert.ok(copies.length > 0, "the overlay store in demo/nextjs/README.md");
    for (const b of copies) {
      assert.equal(b.code, readFileSync(join(root, b.copyOf), "utf8").replace(/\n$/, ""), `${b.file}:${b.line} vs ${b.copyOf}`);
    }
  });
});

describe("the nginx configs in the docs", () => {
  test("there is one (the rate limiter in front of an API)", () => {
    assert.ok(nginxBlocks.length > 0);
    assert.ok(existsSync(NGINX), `${NGINX} is missing: install Debian's nginx (make nginx) or set NGINX`);
  });

  for (const b of nginxBlocks) {
    test(`${b.file}:${b.line}: a burst gets 429 + Retry-After as written, nginx's 503 without it by default`, async () => {
      assert.equal(b.code.split("listen 8080;").length, 2, "one `listen 8080;` to move");
      const statusLine = /^.*limit_req_status 429;.*\n/m;
      assert.match(b.code, statusLine);
      const api = await startFileServer({
        dir: join(root, "dist"),
        api: (path, req, res) => res.writeHead(200, { "content-type": "application/json" }).end("{}"),
      });
      try {
        for (const [variant, rejected, retryAfter] of [
          [b.code, 429, "1"],
          [b.code.replace(statusLine, ""), 503, null],
        ]) {
          const nginx = await startNginx(variant, api.url);
          try {
            const answers = await Promise.all(
              Array.from({ length: 20 }, () => fetch(`${nginx.url}/api/me`).then(async (r) => ({ status: r.status, retryAfter: r.headers.get("retry-after"), body: await r.text() }))),
            );
            const passed = answers.filter((a) => a.status === 200);
            const limited = answers.filter((a) => a.status !== 200);
            assert.ok(passed.length > 0 && limited.length > 0, `a burst is partly served: ${answers.map((a) => a.status)}`);
            for (const a of limited) assert.deepEqual([a.status, a.retryAfter], [rejected, retryAfter]);
            for (const a of passed) assert.equal(a.retryAfter, null, "no Retry-After on a 200");
          } finally {
            await nginx.stop();
          }
        }
      } finally {
        await api.close();
      }
    });
  }
});
