import assert from "node:assert/strict";
import { test } from "node:test";
import attributeVectors from "../../internal/guard/testdata/attribute_vectors.json";
import { attributesText, readGoOptions, readOptions } from "./config.js";
import { requestUrl } from "./request.js";
import { inScope } from "./scope.js";

const base = "http://app.test:8080/portal/page";

test("scope: paths resolve against the page, origins guard every path", () => {
  const { options, problems } = readOptions({ wasm: "/m.wasm", scope: " /api/ , https://API.example.com ,v2/" }, base);
  const prefixes = options.scope;
  assert.deepEqual(prefixes, ["http://app.test:8080/api/", "https://api.example.com/", "http://app.test:8080/portal/v2/"]);
  assert.deepEqual(problems, []);
  assert.ok(inScope("http://app.test:8080/api/users?x=1", prefixes));
  assert.ok(inScope("https://api.example.com/anything", prefixes));
  assert.ok(!inScope("https://api.example.com.evil.test/", prefixes));
  assert.ok(!inScope("http://app.test:8080/static/a.js", prefixes));
});

test("scope: default is the page's origin; bad entries are named and ignored", () => {
  assert.deepEqual(readOptions({ wasm: "/m.wasm" }, base).options.scope, ["http://app.test:8080/"]);
  const r = readOptions({ wasm: "/m.wasm", scope: "ftp://x.test/, http://[bad" }, base);
  assert.deepEqual(r.options.scope, ["http://app.test:8080/"]);
  assert.equal(r.problems.length, 2);
  assert.match(r.problems[0]!, /data-scope/);
});

test("requestUrl's shortcut for plain paths agrees with new URL()", () => {
  const paths = [
    "/api/users", "/api/users?id=1&x=a,b", "/api/a#frag", "/api/./x", "/api/../admin", "//evil.test/api/",
    "/api/%2e%2e/admin", "/api/a b", "/api/\\x", "/api/ü", "/", "/api/x;y=1:z@w", "/api/{x}", "/.",
  ];
  for (const p of paths) assert.equal(requestUrl(p, base), new URL(p, base).href, p);
  const href = (f: () => string) => {
    try {
      return f();
    } catch {
      return "throws"; // ("//" names a host, and none)
    }
  };
  for (let c = 0; c < 256; c++) {
    const ch = String.fromCharCode(c);
    for (const p of [`/${ch}`, `/a${ch}b`, `/a/${ch}${ch}/b`, `/a?${ch}`, `/a#${ch}`]) {
      assert.equal(href(() => requestUrl(p, base)), href(() => new URL(p, base).href), JSON.stringify(p));
    }
  }
  assert.equal(requestUrl("/x", "https://other.test/base"), "https://other.test/x", "a new base is noticed");
});

test("requestUrl resolves like fetch does", () => {
  assert.equal(requestUrl("/api/x/../y", base), "http://app.test:8080/api/y");
  assert.equal(requestUrl(new URL("https://a.test/b"), base), "https://a.test/b");
  assert.equal(requestUrl(new Request("https://a.test/c"), base), "https://a.test/c");
  assert.throws(() => requestUrl("http://[bad", base), TypeError, "fetch would reject it: the facade hands it to fetch");
});

test("data attributes: defaults", () => {
  const { options, problems } = readOptions({}, base, "http://app.test:8080/gateway-circuit.js?v=1");
  assert.deepEqual(options, {
    wasmUrl: "http://app.test:8080/gateway-circuit.wasm?v=1",
    scope: ["http://app.test:8080/"],
    ttlMs: 5000,
    maxTtlMs: 120000,
    tripStatuses: [502, 503, 504],
    tripWindowMs: 3000,
    tripMinFailures: 1,
    tripBurstMs: 250,
    halfOpenMs: 120000,
    stale: false,
    staleMaxMs: 3600000,
    coalesce: true,
    negativeCache: true,
    cooldown: true,
    probe: true,
    idempotency: true,
    emptyTtl: false,
    timeoutMs: 0,
  });
  assert.deepEqual(problems, []);
});

test("the pre-ready reader follows Go's rules: the shared attribute vectors", () => {
  for (const v of attributeVectors) {
    const { options, problems } = readOptions({ wasm: "/m.wasm", ...v.attrs }, base);
    const asText: Record<string, string> = {
      ttlMs: String(options.ttlMs),
      maxTtlMs: String(options.maxTtlMs),
      tripStatuses: options.tripStatuses.join(","),
      staleMaxMs: String(options.staleMaxMs),
      timeoutMs: String(options.timeoutMs),
    };
    for (const k of ["stale", "coalesce", "cooldown", "probe", "emptyTtl"] as const) {
      asText[k] = options[k] ? "on" : "off";
    }
    for (const [k, want] of Object.entries(v.options)) {
      if (k in asText) assert.equal(asText[k], want, `${v.name}: ${k}`); // the rest is Go's alone
    }
    assert.deepEqual(problems, [], `${v.name}: bad values are Go's to name`);
  }
});

test("Go's options frame: what is in force, and its warnings", () => {
  const { options } = readOptions({ wasm: "/m.wasm", ttlMs: "9000" }, base);
  const attrs = attributesText({ wasm: "/m.wasm", ttlMs: "9000", probe: "maybe\nx=1", scope: "/api/" }, options);
  assert.equal(attrs, "ttlMs=9000\nprobe=maybe x=1\nscope=http://app.test:8080/\n", "raw, one line each, scope resolved");
  const go = readGoOptions(
    "ttlMs=5000\nprobe=off\ntripStatuses=500,502\nstale=on\nnegativeCache=always\nidempotency=cross-origin\ntripWindowMs=1\nscope=http://x/\n!data-probe: bad\n",
    options,
  );
  assert.equal(go.options.ttlMs, 5000);
  assert.equal(go.options.probe, false);
  assert.equal(go.options.stale, true);
  assert.equal(go.options.negativeCache, true);
  assert.equal(go.options.idempotency, true);
  assert.equal(go.options.tripWindowMs, 1);
  assert.deepEqual(go.options.scope, options.scope);
  assert.deepEqual(go.options.tripStatuses, [500, 502]);
  assert.deepEqual(go.warnings, ["data-probe: bad"]);
});
