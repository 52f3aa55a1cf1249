// The npm package as a user gets it: `npm pack` of js/ on a clean copy of the
// tree (nothing built: its prepack must build everything), the tarball checked
// against what package.json promises, installed into a scratch app, then used
// from Node (the server entry, the head entry, the bin), from TypeScript (the
// declared types) and from Chromium (the script tag from the package's own
// static files, and the browser entry bundled by esbuild through `exports`).

import assert from "node:assert/strict";
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { brotli } from "../tools/sizes.mjs";
import { build } from "esbuild";
import { startFileServer } from "./fileserver.mjs";
import { launchBrowser, watchedPage } from "./harness.mjs";

const root = new URL("..", import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), "gatewaycircuit-package-"));
const tree = join(work, "tree");
const app = join(work, "app");
const pkgDir = join(app, "node_modules/@gatewaycircuit/browser");
let tarball = "";
let entries = [];
let packLog = ""; // what `npm pack` (its prepack: the whole build) printed

const run = (cmd, args, cwd, env = {}) =>
  execFileSync(cmd, args, { cwd, encoding: "utf8", env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });

/** The files git knows (tracked, or new and not ignored), as they are now: no dist/, build/ or node_modules/. */
function copyCleanTree() {
  const files = run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], root).split("\0").filter(Boolean);
  for (const f of files) {
    if (!existsSync(join(root, f))) continue; // deleted in the working tree
    mkdirSync(dirname(join(tree, f)), { recursive: true });
    cpSync(join(root, f), join(tree, f));
  }
}

before(() => {
  copyCleanTree();
  assert.ok(!existsSync(join(tree, "dist")) && !existsSync(join(tree, "js/dist")), "the copy starts unbuilt");
  const out = join(work, "out");
  mkdirSync(out);
  // The cache is enough for the tree's own npm ci (a fresh CI machine fetches).
  const pack = spawnSync("npm", ["pack", "--pack-destination", out, "--loglevel=warn"], {
    cwd: join(tree, "js"),
    encoding: "utf8",
    env: { ...process.env, npm_config_prefer_offline: "true" },
  });
  packLog = pack.stdout + pack.stderr;
  assert.equal(pack.status, 0, packLog);
  const [name] = readdirSync(out).filter((f) => f.endsWith(".tgz"));
  assert.ok(name, "npm pack wrote a tarball");
  tarball = join(out, name);
  entries = run("tar", ["-tzf", tarball], work).split("\n").filter(Boolean).map((e) => e.replace(/^package\//, ""));

  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "scratch-app", private: true, type: "module" }));
  run("npm", ["install", "--offline", "--no-audit", "--no-fund", "--loglevel=warn", tarball], app);
});

after(() => rmSync(work, { recursive: true, force: true }));

/** The four files of the script-tag build, as js/README.md lists them ("The files"). */
const FOUR = ["gateway-circuit.<hash>.js", "gateway-circuit-facade.<hash>.js", "gateway-circuit-engine.<hash>.js", "gateway-circuit.<hash>.wasm"];
const generic = (f) => f.replace(/\.[0-9a-f]{12}\./, ".<hash>.");

/** The hashed files the bin copied into public/_gc, by kind. */
function hashedAssets() {
  const all = readdirSync(join(app, "public/_gc"));
  const files = all.filter((f) => !/\.(br|gz)$/.test(f));
  assert.deepEqual(all.sort(), files.flatMap((f) => [f, `${f}.br`, `${f}.gz`]).sort(), "each file with its .br and .gz");
  assert.equal(files.length, 4, files.join());
  return {
    script: files.find((f) => /^gateway-circuit\.[0-9a-f]+\.js$/.test(f)),
    facade: files.find((f) => /^gateway-circuit-facade\.[0-9a-f]+\.js$/.test(f)),
    engine: files.find((f) => /^gateway-circuit-engine\.[0-9a-f]+\.js$/.test(f)),
    wasm: files.find((f) => f.endsWith(".wasm")),
  };
}

/** Every file path package.json points at: exports (all conditions), types, bin. */
function promisedTargets(pkg) {
  const targets = [];
  const walk = (v) => (typeof v === "string" ? targets.push(v) : Object.values(v).forEach(walk));
  walk(pkg.exports);
  targets.push(pkg.types, ...Object.values(pkg.bin));
  return targets.map((t) => t.replace(/^\.\//, ""));
}

describe("npm pack of js/ on a clean tree", () => {
  test("the tarball holds every file package.json points at, the licences and the README, and no build debris", () => {
    const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
    assert.equal(pkg.private, undefined, "publishable");
    assert.match(pkg.version, /^0\.\d+\.\d+$/);
    assert.equal(pkg.license, "MIT");
    for (const t of promisedTargets(pkg)) {
      if (t.includes("*")) {
        const re = new RegExp(`^${t.replace(/[.]/g, "\\.").replace("*", ".+")}$`);
        assert.ok(entries.some((e) => re.test(e)), `${t} matches a file in the tarball`);
      } else {
        assert.ok(entries.includes(t), `${t} is in the tarball (${entries.length} files)`);
      }
    }
    for (const f of ["README.md", "dist/LICENSE", "dist/LICENSE-go", "dist/types/types.d.ts"]) assert.ok(entries.includes(f), f);
    const all = entries.filter((e) => e.startsWith("dist/static/")).map((e) => e.slice("dist/static/".length));
    const statics = all.filter((f) => !/\.(br|gz)$/.test(f));
    assert.equal(statics.length, 4, statics.join());
    assert.deepEqual(all.sort(), statics.flatMap((f) => [f, `${f}.br`, `${f}.gz`]).sort(), "each file with its .br and .gz");
    for (const f of statics) {
      const bytes = readFileSync(join(pkgDir, "dist/static", f));
      assert.ok(zlib.brotliDecompressSync(readFileSync(join(pkgDir, "dist/static", `${f}.br`))).equals(bytes), `${f}.br`);
      assert.ok(zlib.gunzipSync(readFileSync(join(pkgDir, "dist/static", `${f}.gz`))).equals(bytes), `${f}.gz`);
      if (f.endsWith(".js")) assert.ok(bytes.toString("utf8").startsWith("/* eslint-disable */"), `${f} starts with a comment ESLint honours`);
    }
    assert.ok(statics.some((f) => /^gateway-circuit-facade\.[0-9a-f]{12}\.js$/.test(f)), statics.join());
    assert.ok(statics.some((f) => /^gateway-circuit\.[0-9a-f]{12}\.js$/.test(f)), statics.join());
    assert.ok(statics.some((f) => /^gateway-circuit-engine\.[0-9a-f]{12}\.js$/.test(f)), statics.join());
    assert.ok(statics.some((f) => /^gateway-circuit\.[0-9a-f]{12}\.wasm$/.test(f)), statics.join());
    for (const e of entries) assert.doesNotMatch(e, /(^src\/|\.stamp$|\.test\.|tsconfig|build\.mjs|\.mk$)/, `${e} does not ship`);
    assert.match(readFileSync(join(pkgDir, "dist/LICENSE"), "utf8"), /^MIT License/);
    assert.match(readFileSync(join(pkgDir, "dist/LICENSE-go"), "utf8"), /The Go Authors/);
  });
});

describe("the build and the docs in the tarball", () => {
  test("the build is quiet: no npm warnings (engine warnings included) from npm pack on a clean tree", () => {
    assert.doesNotMatch(packLog, /EBADENGINE|npm warn/i, packLog);
  });

  test("the docs a tarball user reads offline: the API and options, the Next.js recipe, the policies", () => {
    for (const f of ["api.md", "nextjs.md", "policies.md", "contract.md", "reliability.md"]) assert.ok(entries.includes(`dist/docs/${f}`), f);
    const doc = (f) => readFileSync(join(pkgDir, f), "utf8");
    const readme = doc("README.md");
    for (const f of ["dist/docs/api.md", "dist/docs/nextjs.md", "dist/docs/policies.md"]) assert.ok(readme.includes(f), `README.md points at ${f}`);
    assert.doesNotMatch(readme, /github\.com\/[^ )]*#readme/, "no web page stands in for the docs");
    // The install that works today (a tarball) before the registry line, kept for when it is published.
    assert.match(readme, /npm install \.\/[^\s]*\.tgz/);
    assert.ok(readme.indexOf(".tgz") < readme.indexOf("\nnpm install @gatewaycircuit/browser\n"), "the tarball first");
    const api = doc("dist/docs/api.md");
    for (const s of ["data-ttl-ms", "subscribe(listener)", "The policies, in the order", "Stored format"]) assert.ok(api.includes(s), `api.md: ${s}`);
    for (const s of ["path=app/layout.tsx", "path=app/layout.tsx csp", "path=proxy.ts csp", "path=next.config.ts"]) assert.ok(doc("dist/docs/nextjs.md").includes(s), `nextjs.md: ${s}`);
  });

  test("one list of the module's files: the build's summary, the copier, the README and the recipe name the same four", () => {
    const named = (text) => FOUR.filter((f) => text.includes(f));
    const summary = /js\/dist\/static: ([^\n]*)/.exec(packLog)?.[1] ?? "";
    assert.deepEqual(summary.split(", ").filter((f) => !f.startsWith("each")).map((f) => generic(f.replace(/ .*/, ""))).sort(), [...FOUR].sort(), summary);
    const copier = run(join(app, "node_modules/.bin/gateway-circuit-assets"), [join(work, "copied")], app);
    assert.deepEqual(named(copier.replace(/\.[0-9a-f]{12}\./g, ".<hash>.")), FOUR, copier);
    assert.deepEqual(named(readFileSync(join(pkgDir, "README.md"), "utf8")), FOUR, "README.md");
    assert.deepEqual(named(readFileSync(join(pkgDir, "dist/docs/nextjs.md"), "utf8")), FOUR, "docs/nextjs.md");
    assert.deepEqual(named(readFileSync(join(root, "demo/nextjs/README.md"), "utf8")), FOUR, "demo/nextjs/README.md");
  });
});

describe("the installed tarball in a scratch app", () => {
  test("Node imports the server entry (a pass-through), the head entry and the static files through exports", async () => {
    const api = await startFileServer({ dir: app, api: (path, req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}') });
    try {
      const script = `
        import { gatewayCircuit, getGatewayCircuit, isCircuitOpenError } from "@gatewaycircuit/browser";
        import { assets, markArmedScript, ARMED_ATTRIBUTE } from "@gatewaycircuit/browser/head";
        import { existsSync } from "node:fs";
        import { fileURLToPath } from "node:url";
        const body = await gatewayCircuit.fetchJSON(process.argv[1]);
        const file = (name) => fileURLToPath(import.meta.resolve("@gatewaycircuit/browser/static/" + name));
        console.log(JSON.stringify({
          status: gatewayCircuit.status, read: gatewayCircuit.read(), same: getGatewayCircuit() === gatewayCircuit,
          body, guard: isCircuitOpenError(new Error("x")), assets, marker: markArmedScript.length, attr: ARMED_ATTRIBUTE,
          files: [existsSync(file(assets.script)), existsSync(file(assets.wasm))],
        }));`;
      const url = `${api.url}/api/me`;
      for (const conditions of [[], ["--conditions=react-server"]]) {
        // asynchronously: this process serves the API the child calls
        const { stdout } = await promisify(execFile)(process.execPath, [...conditions, "--input-type=module", "-e", script, url], { cwd: app });
        const got = JSON.parse(stdout);
        assert.equal(got.status, "fallback", "on a server the module is a pass-through");
        assert.equal(got.read, null);
        assert.equal(got.same, true);
        assert.deepEqual(got.body, { ok: true }, "fetchJSON goes to the network");
        assert.equal(got.guard, false);
        assert.match(got.assets.script, /^gateway-circuit\.[0-9a-f]{12}\.js$/);
        assert.match(got.assets.wasm, /^gateway-circuit\.[0-9a-f]{12}\.wasm$/);
        assert.ok(got.marker > 200, `the inline marker script is built in (${got.marker} bytes)`);
        assert.equal(got.attr, "data-gateway-circuit");
        assert.deepEqual(got.files, [true, true], "the hashed files named by head are in the package");
      }
    } finally {
      await api.close();
    }
  });

  test("TypeScript resolves the declared types of every entry", () => {
    writeFileSync(
      join(app, "consumer.ts"),
      `import { gatewayCircuit, getGatewayCircuit, isCircuitOpenError, type CircuitState, type GatewayCircuit } from "@gatewaycircuit/browser";
import { assets, markArmedScript } from "@gatewaycircuit/browser/head";
import type {} from "@gatewaycircuit/browser/global";
interface User { name: string }
const viaGlobal: GatewayCircuit = window.gatewayCircuit;
const state: CircuitState | null = getGatewayCircuit().read();
const names: string[] = [assets.script, assets.wasm, markArmedScript];
const user: Promise<User> = gatewayCircuit.fetchJSON<User>("/api/me");
const query: (ctx: { signal: AbortSignal }) => Promise<User> = window.gatewayCircuit.queryFn<User>("/api/me");
const open: boolean = isCircuitOpenError(new Error("x"));
export { viaGlobal, state, names, user, query, open };
`,
    );
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, target: "ES2022", module: "ESNext", moduleResolution: "Bundler", lib: ["ES2022", "DOM"], types: [] },
        files: ["consumer.ts"],
      }),
    );
    run(join(root, "node_modules/.bin/tsc"), ["-p", "tsconfig.json"], app);
    // and the check can fail: a wrong type is reported
    writeFileSync(join(app, "wrong.ts"), `import { assets } from "@gatewaycircuit/browser/head";\nconst n: number = assets.wasm;\nexport { n };\n`);
    assert.throws(() => run(join(root, "node_modules/.bin/tsc"), ["--noEmit", "--strict", "--moduleResolution", "bundler", "--module", "esnext", "wrong.ts"], app));
  });

  test("the bin copies the module files: hashed, or under stable names with --stable", () => {
    const bin = join(app, "node_modules/.bin/gateway-circuit-assets");
    run(bin, ["public/_gc"], app);
    run(bin, ["--stable", "public"], app);
    const hashed = hashedAssets();
    // The facade's and the engine's files keep their hashed names: each file loads the next by its name.
    const stableNames = [hashed.engine, hashed.facade, "gateway-circuit.js", "gateway-circuit.wasm"];
    assert.deepEqual(readdirSync(join(app, "public")).filter((f) => f !== "_gc").sort(), stableNames.flatMap((f) => [f, `${f}.br`, `${f}.gz`]).sort());
    assert.ok(readFileSync(join(app, "public/gateway-circuit.wasm")).equals(readFileSync(join(app, "public/_gc", hashed.wasm))), "the same wasm");
  });

  test("the script blocks with the stand-in only: the facade is in the file it names, Go's runtime, the wasm loader and the Go path in the engine's file that one names", () => {
    const { script, facade, engine } = hashedAssets();
    const read = (f) => readFileSync(join(app, "public/_gc", f), "utf8");
    const [tag, api, rest] = [read(script), read(facade), read(engine)];
    assert.ok(tag.includes(facade), "the script names the facade's file by its hash");
    assert.ok(api.includes(engine), "the facade's file names the engine's file by its hash");
    // wasm_exec.js (Go's runtime), engine.ts (the exports it calls), gopath.ts / mutations.ts
    for (const marker of ["syscall/js.valueGet", "importObject", "gc_begin", "gc_adopt", "idempotency-key"]) {
      assert.ok(rest.includes(marker), `the engine's file has ${marker}`);
      assert.ok(!tag.includes(marker) && !api.includes(marker), `only the engine's file carries ${marker}`);
    }
    // the facade's take-over of the calls sent early and the pre-ready hold (circuit.ts); the tag carries only the
    // synthetic 503, for a stored circuit when the facade's file fails
    for (const marker of ["takeOver", "was not ready within"]) {
      assert.ok(api.includes(marker), `the facade's file has ${marker}`);
      assert.ok(!tag.includes(marker), `the script must not carry ${marker}: it blocks the first paint`);
    }
    // "a few KB", as the seed's breaker: every byte of it delays the first paint. It reads the
    // attributes and the stored state by Go's table (policy.gen.ts) and keeps a stored circuit in
    // force when the facade's file fails: ~3.9 KB, still inside the first round trip.
    const br = brotli(Buffer.from(tag)).length;
    assert.ok(br <= 4096, `the script is ${br} B brotli`);
  });

  describe("in Chromium", () => {
    let server;
    let base = "";
    let browser;
    const counts = new Map();
    const pages = new Map();

    before(async () => {
      // The browser entry, resolved the way a bundler resolves it (the "browser" condition).
      await build({
        stdin: {
          contents: `import { gatewayCircuit, getGatewayCircuit, isCircuitOpenError } from "@gatewaycircuit/browser";
            window.check = async () => {
              await gatewayCircuit.ready;
              const first = await gatewayCircuit.fetch("/api/orders");
              let error = null;
              try { await gatewayCircuit.fetchJSON("/api/orders"); } catch (e) { error = e; }
              return { status: gatewayCircuit.status, first: first.status, open: isCircuitOpenError(error),
                httpStatus: error?.httpStatus, same: getGatewayCircuit() === window.gatewayCircuit,
                armed: gatewayCircuit.read()?.httpStatus ?? null };
            };`,
          resolveDir: app,
          sourcefile: "app.js",
        },
        bundle: true,
        platform: "browser",
        format: "iife",
        outfile: join(app, "public/app.js"),
        logLevel: "warning",
      });
      const { script, wasm } = hashedAssets();
      writeFileSync(
        join(app, "public/index.html"),
        `<!doctype html><html><head><script src="/_gc/${script}" data-wasm="/_gc/${wasm}" data-scope="/api/"></script>` +
          `<script src="/app.js"></script></head><body></body></html>`,
      );
      writeFileSync(
        join(app, "public/stable.html"),
        `<!doctype html><html><head><script src="/gateway-circuit.js" data-scope="/api/"></script></head><body></body></html>`,
      );
      server = await startFileServer({
        dir: join(app, "public"),
        pages,
        api: (path, req, res) => {
          counts.set(path, (counts.get(path) ?? 0) + 1);
          res.writeHead(502, { "content-type": "text/html" }).end("<h1>502 Bad Gateway</h1>");
        },
      });
      base = server.url;
      browser = await launchBrowser();
    });

    after(async () => {
      await browser?.close();
      await server?.close();
    });

    test("the script tag from the package's static files runs the wasm; the browser entry hands out its instance", async () => {
      const context = await browser.newContext();
      const { page, problems } = await watchedPage(context);
      await page.goto(`${base}/`);
      const got = await page.evaluate(() => window.check());
      assert.deepEqual(got, { status: "ready", first: 502, open: true, httpStatus: 502, same: true, armed: 502 });
      assert.equal(counts.get("/api/orders"), 1, "the second request was answered before the network");
      assert.deepEqual(problems, []);
      await context.close();
    });

    test("the stand-in rendered inline from the head entry (nonce CSP, a page below the root) loads the facade and the engine from data-src and runs the wasm", async () => {
      const { standInScript, assets } = await import(join(pkgDir, "dist/head.js"));
      const { script, facade, engine, wasm } = hashedAssets();
      assert.equal(standInScript, readFileSync(join(app, "public/_gc", script), "utf8"), "the tag's file, byte for byte");
      assert.equal(assets.script, script);
      const nonce = "b64n0nce";
      pages.set("/shop/cart/index.html", {
        headers: { "content-security-policy": `script-src 'nonce-${nonce}' 'wasm-unsafe-eval'` },
        html:
          `<!doctype html><html><head>` +
          `<script nonce="${nonce}" data-src="/_gc/" data-wasm="/_gc/${wasm}" data-scope="/api/">${standInScript}</script>` +
          `<script nonce="${nonce}" src="/app.js"></script></head><body></body></html>`,
      });
      const context = await browser.newContext();
      const { page, problems } = await watchedPage(context);
      const loaded = [];
      page.on("requestfinished", (r) => loaded.push(new URL(r.url()).pathname));
      const before = counts.get("/api/orders") ?? 0;
      await page.goto(`${base}/shop/cart/index.html`);
      const got = await page.evaluate(() => window.check());
      assert.deepEqual(got, { status: "ready", first: 502, open: true, httpStatus: 502, same: true, armed: 502 });
      assert.equal(counts.get("/api/orders"), before + 1, "the second request was answered before the network");
      for (const f of [facade, engine, wasm]) assert.ok(loaded.includes(`/_gc/${f}`), `${f} from data-src: ${loaded.join(" ")}`);
      assert.ok(!loaded.includes(`/_gc/${script}`), "the inline stand-in fetches no tag file");
      assert.deepEqual(problems, []);
      await context.close();
    });

    test("without the engine's file beside the script, the gate alone runs (fallback): a stored circuit is still honoured", async () => {
      mkdirSync(join(app, "public/lone"), { recursive: true });
      cpSync(join(app, "public/gateway-circuit.js"), join(app, "public/lone/gateway-circuit.js"));
      const { facade } = hashedAssets();
      cpSync(join(app, "public", facade), join(app, "public/lone", facade));
      writeFileSync(
        join(app, "public/lone.html"),
        `<!doctype html><html><head><script src="/lone/gateway-circuit.js" data-wasm="/gateway-circuit.wasm" data-scope="/api/"></script></head><body></body></html>`,
      );
      const context = await browser.newContext();
      const { page, problems } = await watchedPage(context);
      await page.goto(`${base}/lone.html`);
      const got = await page.evaluate(async () => {
        const error = await gatewayCircuit.ready.then(() => null, (e) => String(e));
        gatewayCircuit.arm(502);
        const res = await gatewayCircuit.fetch("/api/lone");
        return { status: gatewayCircuit.status, error, answered: res.status, by: res.headers.get("x-gateway-circuit") };
      });
      assert.equal(got.status, "fallback");
      assert.match(got.error, /gateway-circuit-engine\.[0-9a-f]+\.js did not load/);
      assert.deepEqual([got.answered, got.by], [503, "open"]);
      assert.equal(counts.get("/api/lone"), undefined, "answered before the network");
      assert.deepEqual(problems, []);
      await context.close();
    });

    test("without the facade's file beside the script, the page keeps working on the plain fetch (fallback), and says so once", async () => {
      mkdirSync(join(app, "public/bare"), { recursive: true });
      cpSync(join(app, "public/gateway-circuit.js"), join(app, "public/bare/gateway-circuit.js"));
      writeFileSync(
        join(app, "public/bare.html"),
        `<!doctype html><html><head><script src="/bare/gateway-circuit.js" data-wasm="/gateway-circuit.wasm" data-scope="/api/"></script></head><body></body></html>`,
      );
      const context = await browser.newContext();
      const { page, problems } = await watchedPage(context);
      const warnings = [];
      page.on("console", (m) => m.type() === "warning" && m.text().includes("[gatewaycircuit]") && warnings.push(m.text()));
      await page.goto(`${base}/bare.html`);
      const got = await page.evaluate(async () => {
        const error = await gatewayCircuit.ready.then(() => null, (e) => String(e));
        const res = await gatewayCircuit.fetch("/api/bare", { method: "POST", body: "x" });
        return { status: gatewayCircuit.status, error, answered: res.status, by: res.headers.get("x-gateway-circuit") };
      });
      assert.equal(got.status, "fallback");
      assert.match(got.error, /gateway-circuit-facade\.[0-9a-f]+\.js did not load/);
      assert.deepEqual([got.answered, got.by], [502, null], "the gateway's own answer");
      assert.equal(counts.get("/api/bare"), 1, "the request went out");
      assert.equal(warnings.length, 1, warnings.join("\n"));
      assert.deepEqual(problems, []);
      await context.close();
    });

    // The facade's file held back 1.5 s (the route delays the real file): what the tag's stand-in does meanwhile.
    async function beforeTheFacade(context, path) {
      await context.route(/gateway-circuit-facade\.[0-9a-f]+\.js$/, async (route) => {
        await new Promise((r) => setTimeout(r, 1500));
        await route.continue();
      });
      const { page, problems } = await watchedPage(context);
      await page.goto(`${base}${path}`, { waitUntil: "commit" });
      await page.waitForFunction(() => window.gatewayCircuit !== undefined);
      return { page, problems };
    }

    test("before the facade's file runs, a stored circuit holds every call (none reaches the gateway) until the facade answers it", async () => {
      const context = await browser.newContext();
      const { page, problems } = await beforeTheFacade(context, "/stable.html");
      const got = await page.evaluate(async () => {
        const early = { status: gatewayCircuit.status, stored: gatewayCircuit.arm(502, 60_000).httpStatus, read: gatewayCircuit.read()?.httpStatus };
        location.reload(); // the next page load starts with the stored circuit
        return early;
      });
      assert.deepEqual(got, { status: "loading", stored: 502, read: 502 });
      await page.waitForFunction(() => window.gatewayCircuit !== undefined && document.readyState !== "complete");
      const held = await page.evaluate(async () => {
        const before = gatewayCircuit.status;
        const res = await gatewayCircuit.fetch("/api/held");
        return { before, answered: res.status, by: res.headers.get("x-gateway-circuit"), after: gatewayCircuit.status };
      });
      assert.deepEqual([held.before, held.answered, held.by], ["loading", 503, "open"]);
      assert.notEqual(held.after, "fallback", "the facade answered it");
      assert.equal(counts.get("/api/held"), undefined, "answered before the network");
      assert.deepEqual(problems, []);
      await context.close();
    });

    test("before the facade's file runs, with nothing stored a GET goes out at once, and its 502 arms the circuit once Go runs", async () => {
      const context = await browser.newContext();
      const { page, problems } = await beforeTheFacade(context, "/stable.html");
      const got = await page.evaluate(async () => {
        const before = gatewayCircuit.status;
        const res = await gatewayCircuit.fetch("/api/early");
        const answered = { before, status: res.status, still: gatewayCircuit.status };
        await gatewayCircuit.ready;
        for (let i = 0; i < 100 && !gatewayCircuit.read(); i++) await new Promise((r) => setTimeout(r, 20));
        return { ...answered, armed: gatewayCircuit.read()?.httpStatus ?? null, calls: gatewayCircuit.metrics().calls };
      });
      assert.deepEqual(got, { before: "loading", status: 502, still: "loading", armed: 502, calls: 1 });
      assert.equal(counts.get("/api/early"), 1);
      assert.deepEqual(problems, []);
      await context.close();
    });

    test("the --stable copies work from a plain tag without data-wasm", async () => {
      const context = await browser.newContext();
      const { page, problems } = await watchedPage(context);
      await page.goto(`${base}/stable.html`);
      await page.evaluate(() => window.gatewayCircuit.ready);
      assert.equal(await page.evaluate(() => window.gatewayCircuit.status), "ready");
      assert.deepEqual(problems, []);
      await context.close();
    });
  });
});
