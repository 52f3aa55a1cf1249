// Proves the nginx harness itself (e2e/nginx.mjs): each scenario answers as
// described, and the access log counts what reached the gateway. The product
// scenarios (the module in Chromium behind nginx) build on it.

import { test } from "node:test";
import assert from "node:assert/strict";
import { startNginx } from "./nginx.mjs";
import { startUpstream } from "./upstream.mjs";

/** n requests at once; their statuses and Retry-After headers. */
async function burst(url, n) {
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const res = await fetch(`${url}/api/items/${i}`);
      const body = await res.text();
      return { status: res.status, retryAfter: res.headers.get("retry-after"), type: res.headers.get("content-type"), body };
    }),
  );
}

async function withNginx(options, fn) {
  const nginx = await startNginx(options);
  try {
    await fn(nginx);
  } finally {
    await nginx.stop();
  }
}

test("dead upstream: nginx's own HTML 502, counted from the log", () =>
  withNginx({ scenario: "dead" }, async (nginx) => {
    const answers = await burst(nginx.url, 3);
    for (const a of answers) {
      assert.equal(a.status, 502);
      assert.match(a.type, /text\/html/);
      assert.match(a.body, /502 Bad Gateway[\s\S]*nginx/);
    }
    assert.equal(await nginx.count("/api/"), 3);
    assert.equal(await nginx.count("/api/", 502), 3);
    assert.equal(await nginx.count("/other/"), 0);
  }));

test("hanging upstream: 504 after proxy_read_timeout", () =>
  withNginx({ scenario: "hang", readTimeoutS: 1 }, async (nginx) => {
    const started = Date.now();
    const [a] = await burst(nginx.url, 1);
    const took = Date.now() - started;
    assert.equal(a.status, 504);
    assert.match(a.body, /504 Gateway Time-out/);
    assert.ok(took >= 900, `answered after ${took} ms, before proxy_read_timeout`);
    const [e] = await nginx.entries();
    assert.deepEqual([e.status, e.method, e.uri, e.upstreamStatus], [504, "GET", "/api/items/0", "504"]);
  }));

for (const [scenario, rejected] of [
  ["limit503", 503],
  ["limit429", 429],
]) {
  test(`${scenario}: a burst is partly rejected with ${rejected}, never with Retry-After`, () =>
    withNginx({ scenario, limit: { rate: "1r/s", burst: 4 } }, async (nginx) => {
      const answers = await burst(nginx.url, 20);
      const ok = answers.filter((a) => a.status === 200).length;
      const no = answers.filter((a) => a.status === rejected).length;
      assert.equal(ok + no, 20, `statuses: ${answers.map((a) => a.status)}`);
      assert.ok(ok >= 1 && ok <= 6, `${ok} passed the limiter (burst 4 at 1 r/s)`);
      assert.ok(no >= 14, `${no} rejected`);
      assert.ok(answers.every((a) => a.retryAfter === null), "nginx's limiter sends no Retry-After");
      assert.equal(await nginx.count("/api/", 200), ok);
      assert.equal(await nginx.count("/api/", rejected), no);
      const entries = await nginx.entries();
      assert.ok(entries.filter((e) => e.status === rejected).every((e) => e.upstreamStatus === "-"), "rejected at nginx, not upstream");
    }));
}

test("flaky upstream: a seeded ~10% of answers are 500, the rest 200", () =>
  withNginx({ scenario: "flaky", seed: 7 }, async (nginx) => {
    const answers = [];
    for (let i = 0; i < 10; i++) answers.push(...(await burst(nginx.url, 20)));
    const failed = answers.filter((a) => a.status === 500).length;
    assert.equal(answers.filter((a) => a.status === 200).length + failed, 200);
    assert.ok(failed >= 8 && failed <= 35, `${failed} of 200 failed, want about 20`);
    assert.equal(await nginx.count("/api/", 500), failed);
    assert.equal(await nginx.count("/api/"), 200);
  }));

test("proxy to upstreamUrl, pages included; switching the scenario keeps the port and the log", async () => {
  const app = await startUpstream({ mode: "ok" });
  try {
    await withNginx({ scenario: "proxy", upstreamUrl: app.url }, async (nginx) => {
      const page = await fetch(`${nginx.url}/index.html`);
      assert.equal(page.status, 200);
      assert.equal((await page.json()).path, "/index.html", "pages go to the upstream too");
      assert.deepEqual((await burst(nginx.url, 2)).map((a) => a.status), [200, 200]);
      await nginx.setScenario("dead");
      assert.equal(nginx.scenario, "dead");
      assert.deepEqual((await burst(nginx.url, 2)).map((a) => a.status), [502, 502]);
      assert.equal((await fetch(`${nginx.url}/index.html`)).status, 200, "the pages still load while the API is down");
      await nginx.setScenario("proxy");
      assert.deepEqual((await burst(nginx.url, 1)).map((a) => a.status), [200]);
      assert.equal(await nginx.count("/api/"), 5);
      assert.equal(await nginx.count("/api/", 502), 2);
      assert.equal(await nginx.count("/index.html"), 2);
      assert.equal(app.counts.requests, 2 + 2 + 1, "what nginx forwarded reached the upstream");
    });
  } finally {
    await app.stop();
  }
});

test("a missing nginx binary fails the test, never skips it", async () => {
  await assert.rejects(startNginx({ scenario: "dead", nginx: "/nonexistent/nginx" }), /is missing: run 'make nginx'/);
});
