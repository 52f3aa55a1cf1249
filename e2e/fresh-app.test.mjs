// Fresh create-next-app apps (App Router, TypeScript, ESLint, cacheComponents,
// and in `next dev` React's StrictMode, which the App Router turns on) that use
// the package only as a newcomer would: the `npm pack` tarball and the files of
// the recipe shipped in it, docs/nextjs.md (e2e/fixtures/setup-fresh-app.mjs):
// build/fresh-app without a CSP, build/fresh-app-csp with the recipe's
// proxy.ts and nonce-reading layout.
//
// First what a team's CI runs on each (`npm run lint`, `tsc --noEmit`; `next
// build` ran in `make fresh-app-build`), then the browser: nginx is the gateway
// in front, the pages go to Next, /api/ to the demo gateway, or to nothing when
// it is down (nginx's own 502). nginx's access log is the ground truth of what
// reached the gateway.
//
// Needs the apps built: `make fresh-app-build` (e2e/fresh-app.mk). When they
// are not, the suite fails and says so.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { launchBrowser, openPeriodsEnded, queriesSettled, startGateway, startNext, watchedPage } from "./harness.mjs";
import { startNginx } from "./nginx.mjs";

const root = new URL("..", import.meta.url).pathname;
const APPS = { plain: `${root}build/fresh-app`, csp: `${root}build/fresh-app-csp` };
const QUERIES = 10; // the page's useQuery calls
const KEY = "gateway_circuit_v1";
const nextBin = (app) => `${app}/node_modules/next/dist/bin/next`;

let gw, browser;
before(async () => {
  for (const app of Object.values(APPS)) {
    assert.ok(existsSync(`${app}/.next/BUILD_ID`), `${app} is not built: run \`make fresh-app-build\` (e2e/fresh-app.mk)`);
  }
  gw = await startGateway();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await gw?.stop();
});

const settled = (page) => queriesSettled(page, QUERIES, 60_000); // next dev compiles the page on its first request
const rowStates = (page) => page.$$eval('[data-testid="query"]', (rows) => rows.map((r) => r.dataset.state));
const overlayVisible = (page) => page.isVisible('[data-testid="overlay"]');
const copied = (app) => readdirSync(`${app}/public/_gc`);
const served = (app) => copied(app).filter((f) => !/\.(br|gz)$/.test(f));

for (const [variant, app] of Object.entries(APPS)) {
  describe(`what CI runs on the fresh app (${variant})`, () => {
    test("npm run lint reports nothing, the copied module files included", () => {
      const js = served(app).filter((f) => f.endsWith(".js"));
      assert.equal(js.length, 3, `the module's files are in public/_gc for the lint to see: ${js}`);
      const lint = spawnSync("npm", ["run", "--silent", "lint", "--", "--max-warnings=0"], { cwd: app, encoding: "utf8" });
      assert.equal(lint.status, 0, `npm run lint:\n${lint.stdout}${lint.stderr}`);
    });

    if (variant === "plain") {
      test("a config that reports nothing in the copies: the header is reported unused, the copier's ignore line keeps it clean", () => {
        const lint = (ignores) => {
          writeFileSync(
            `${app}/eslint.bare.config.mjs`,
            `import { globalIgnores } from "eslint/config";\nexport default [globalIgnores(${JSON.stringify([".next/**", ...ignores])})];\n`,
          );
          try {
            return spawnSync(process.execPath, [`${app}/node_modules/eslint/bin/eslint.js`, "-c", "eslint.bare.config.mjs", "--max-warnings=0", "."], { cwd: app, encoding: "utf8" });
          } finally {
            rmSync(`${app}/eslint.bare.config.mjs`);
          }
        };
        const bare = lint([]);
        assert.notEqual(bare.status, 0, "the documented caveat holds");
        assert.match(bare.stdout, /Unused eslint-disable directive/);
        const ignored = lint(["public/_gc/**"]);
        assert.equal(ignored.status, 0, `${ignored.stdout}${ignored.stderr}`);
      });
    }

    test("tsc --noEmit passes", () => {
      const tsc = spawnSync(process.execPath, [`${app}/node_modules/typescript/bin/tsc`, "--noEmit"], { cwd: app, encoding: "utf8" });
      assert.equal(tsc.status, 0, `tsc --noEmit:\n${tsc.stdout}${tsc.stderr}`);
    });

    test("the copier wrote the four files of the package's README, each with its .br and .gz", () => {
      const files = served(app);
      assert.deepEqual(
        files.map((f) => f.replace(/\.[0-9a-f]{12}\./, ".<hash>.")).sort(),
        ["gateway-circuit-engine.<hash>.js", "gateway-circuit-facade.<hash>.js", "gateway-circuit.<hash>.js", "gateway-circuit.<hash>.wasm"],
      );
      assert.deepEqual(copied(app).sort(), files.flatMap((f) => [f, `${f}.br`, `${f}.gz`]).sort());
    });
  });
}

// `next dev` is where StrictMode mounts every component twice; `next start` is what users get.
for (const [variant, command] of [["plain", "start"], ["plain", "dev"], ["csp", "start"]]) {
  const app = APPS[variant];
  describe(`the fresh app (${variant}) under next ${command}, behind nginx`, () => {
    let next, nginx;
    before(async () => {
      next = await startNext(app, {}, { command, next: nextBin(app) });
      nginx = await startNginx({ scenario: "proxy", upstreamUrl: next.url, apiUrl: gw.url });
    });
    after(async () => {
      await nginx?.stop();
      await next?.stop();
    });

    test("one page load sends each query to the gateway once", async () => {
      await nginx.setScenario("proxy");
      const context = await browser.newContext();
      const { page, problems } = await watchedPage(context);
      const before = await nginx.count("/api/");
      await page.goto(nginx.url + "/", { timeout: 120_000 });
      await settled(page);
      assert.deepEqual(await rowStates(page), Array(QUERIES).fill("success"));
      await page.waitForFunction(() => window.gatewayCircuit.status !== "loading", null, { timeout: 15_000 });
      assert.equal(await page.evaluate(() => window.gatewayCircuit.status), "ready");
      assert.equal((await nginx.count("/api/")) - before, QUERIES, "requests that reached the gateway for one page load");
      // create-next-app's Tailwind styles are generated with the recipe's next.config.ts in (its `turbopack` block):
      // the page's <main> is `flex … max-w-3xl`, a block of the full width without them.
      const main = await page.evaluate(() => {
        const s = getComputedStyle(document.querySelector("main"));
        return { display: s.display, maxWidth: s.maxWidth };
      });
      assert.deepEqual(main, { display: "flex", maxWidth: "768px" }, "Tailwind's utilities apply");
      assert.deepEqual(problems, []);
      await context.close();
    });

    test("gateway down: the overlay, then F5 x 5 sends nothing but a probe per open period ended", async () => {
      await nginx.setScenario("dead");
      const context = await browser.newContext();
      const { page, problems } = await watchedPage(context);
      const start = await nginx.count("/api/", 502);
      await page.goto(nginx.url + "/", { timeout: 120_000 });
      await settled(page);
      await page.waitForFunction(() => document.documentElement.dataset.gatewayCircuit === "armed", null, { timeout: 10_000 });
      assert.equal(await overlayVisible(page), true);
      assert.equal(await page.textContent('[data-testid="overlay-status"]'), "502");
      assert.equal((await nginx.count("/api/", 502)) - start, QUERIES, "the first load: each query once, no retries");
      const armed = await page.evaluate((k) => sessionStorage.getItem(k), KEY);

      const before = await nginx.count("/api/");
      for (let i = 1; i <= 5; i++) {
        await page.reload();
        // While the period is open the overlay is there as soon as the page loaded; after it, once the probe failed
        // and the circuit armed again (the subscription says so; the cards may have settled a moment before).
        await settled(page);
        await page.waitForSelector('[data-testid="overlay"]', { state: "visible", timeout: 5_000 }).catch(() => {});
        assert.equal(await overlayVisible(page), true, `overlay visible after reload ${i}`);
        assert.deepEqual(await rowStates(page), Array(QUERIES).fill("error"), `reload ${i}`);
      }
      // The defaults: a first open period of 5 s, doubled per failed probe. F5 while it is open sends nothing.
      const sent = (await nginx.count("/api/")) - before;
      const periods = openPeriodsEnded(Date.now() - (JSON.parse(armed).until - 5_000));
      assert.ok(sent <= periods, `${sent} requests over 5 reloads, more than a probe per open period ended (${periods})`);
      if (sent === 0) assert.equal(await page.evaluate((k) => sessionStorage.getItem(k), KEY), armed, "reloads do not move the deadline");
      assert.deepEqual(problems, []);
      await context.close();
    });

    // What the recipe says about a module file that is not there (a stale name, no prebuild).
    test("a missing module file is answered 404, directly and behind nginx", async () => {
      const missing = "/_gc/gateway-circuit.000000000000.js";
      for (const base of [next.url, nginx.url]) {
        const plain = await fetch(base + missing, { headers: { "accept-encoding": "identity" } });
        assert.equal(plain.status, 404, `${base}: Accept-Encoding: identity`);
        await plain.arrayBuffer();
        const br = await fetch(base + missing, { headers: { "accept-encoding": "gzip, deflate, br, zstd" } });
        assert.equal(br.status, 404, `${base}: Accept-Encoding: br`);
        // The recipe's rewrite leaves the br encoding header on the 404 page, and says so (Node's fetch
        // never settles a body it cannot decode: cancel it).
        assert.equal(br.headers.get("content-encoding"), "br");
        await br.body?.cancel();
      }
    });

    if (command === "start") {
      test("next start sends each module file precompressed: the .br or .gz beside it, with its own type", async () => {
        for (const file of served(app)) {
          const type = file.endsWith(".wasm") ? "application/wasm" : "text/javascript; charset=utf-8";
          for (const [accept, encoding, sent] of [
            ["gzip, deflate, br, zstd", "br", `${file}.br`],
            ["gzip, deflate", "gzip", `${file}.gz`],
            ["identity", null, file],
          ]) {
            const res = await fetch(`${next.url}/_gc/${file}`, { headers: { "accept-encoding": accept } });
            const body = Buffer.from(await res.arrayBuffer());
            const what = `${file}, Accept-Encoding: ${accept}`;
            assert.equal(res.status, 200, what);
            assert.equal(res.headers.get("content-encoding"), encoding, what);
            assert.equal(res.headers.get("content-type"), type, what);
            assert.match(res.headers.get("cache-control"), /immutable/, what);
            // Node's fetch decodes br and gzip: the decoded bytes are the file's, whatever was sent.
            assert.ok(body.equals(readFileSync(join(app, "public/_gc", file))), `${what}: the file's bytes`);
            assert.equal(Number(res.headers.get("content-length")), statSync(join(app, "public/_gc", sent)).size, `${what}: ${sent} sent`);
          }
        }
      });

      test("Chromium receives the wasm brotli-compressed: the bytes on the wire are the .br file's", async () => {
        const context = await browser.newContext();
        const { page, problems } = await watchedPage(context);
        const wasm = page.waitForResponse((r) => r.url().endsWith(".wasm"), { timeout: 60_000 });
        await page.goto(next.url + "/", { timeout: 120_000 });
        const res = await wasm;
        assert.equal(res.status(), 200);
        assert.equal((await res.allHeaders())["content-encoding"], "br");
        const { responseBodySize } = await res.request().sizes();
        const file = served(app).find((f) => f.endsWith(".wasm"));
        assert.equal(responseBodySize, statSync(join(app, "public/_gc", `${file}.br`)).size, "bytes on the wire");
        await page.waitForFunction(() => window.gatewayCircuit.status !== "loading", null, { timeout: 15_000 });
        assert.equal(await page.evaluate(() => window.gatewayCircuit.status), "ready");
        await context.close();
        assert.deepEqual(problems.filter((p) => !p.includes("/api/")), []);
      });
    }

    if (variant === "csp") {
      test("proxy.ts: a fresh nonce per request, the recipe's policy, every script nonced, the wasm allowed", async () => {
        const nonces = [];
        for (let i = 0; i < 2; i++) {
          const context = await browser.newContext();
          const { page, problems } = await watchedPage(context);
          await page.addInitScript(() => {
            window.__violations = [];
            document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
          });
          const res = await page.goto(nginx.url + "/", { timeout: 120_000 });
          const csp = res.headers()["content-security-policy"];
          const nonce = /'nonce-([^']+)'/.exec(csp ?? "")?.[1];
          assert.ok(nonce, `a nonce in ${csp}`);
          assert.equal(
            csp,
            `default-src 'self'; script-src 'self' 'nonce-${nonce}' 'strict-dynamic' 'wasm-unsafe-eval'; style-src 'self' 'nonce-${nonce}' 'unsafe-hashes' 'sha256-zlqnbDt84zf1iSefLU/ImC54isoprH/MRiVZGskwexk='; ` +
              "img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
          );
          nonces.push(nonce);
          await settled(page);
          await page.waitForFunction(() => window.gatewayCircuit.status !== "loading", null, { timeout: 15_000 });
          const got = await page.evaluate(() => ({
            status: window.gatewayCircuit.status,
            unnonced: [...document.scripts].filter((s) => !s.nonce).map((s) => s.src || s.textContent.slice(0, 40)),
            nonces: [...new Set([...document.scripts].map((s) => s.nonce))],
            violations: window.__violations,
          }));
          assert.deepEqual(got, { status: "ready", unnonced: [], nonces: [nonce], violations: [] });
          assert.deepEqual(problems, []);
          await context.close();
        }
        assert.notEqual(nonces[0], nonces[1], "a nonce per request");
      });

      test("proxy.ts's matcher: pages get the policy; the module's files and Next's static files do not pass through it", async () => {
        const html = await (await fetch(`${next.url}/`)).text();
        const chunk = /\/_next\/static\/[^"]+\.js/.exec(html)?.[0];
        assert.ok(chunk, "the page names a Next chunk");
        assert.ok((await fetch(`${next.url}/`)).headers.get("content-security-policy"));
        for (const path of [`/_gc/${served(app)[0]}`, chunk]) {
          const res = await fetch(`${next.url}${path}`);
          assert.equal(res.status, 200, path);
          assert.equal(res.headers.get("content-security-policy"), null, path);
        }
      });
    }
  });
}
