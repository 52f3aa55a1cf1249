// The fetch contract: with the circuit closed, gatewayCircuit.fetch is
// observably native fetch. A generated matrix of cases (e2e/contract/cases.mjs)
// runs in a real browser through both, against a fixture server that records
// what it receives (e2e/contract/server.mjs); then concurrent scenarios, each
// caller compared with what native fetch gives the same caller.
//
// A test is one behaviour; when it fails it prints each differing case: its
// inputs and the first differing field (native | module). Only the page API
// (goto, evaluate, waitForFunction, close; contexts for isolation) is used,
// so another engine's driver can run the same file (see openBrowser).

import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { GROUPS, generateCases, mayCarryKey } from "./contract/cases.mjs";
import { caseDiffs, clientDiffs, describeCase, formatFailure } from "./contract/compare.mjs";
import { startContractServer } from "./contract/server.mjs";

const root = new URL("..", import.meta.url).pathname;

/**
 * The browser: {newContext(), close()}; a context has newPage() and close();
 * a page has goto(url), reload(), evaluate(fn, arg), waitForFunction(fn, arg,
 * {timeout}) and close(). The engine driver (e2e/driver/, E2E_ENGINE picks
 * chromium, firefox or webkit) provides exactly that; until it is in the tree
 * this falls back to playwright-core's Chromium, the only engine-specific code.
 */
async function openBrowser() {
  const driver = new URL("./driver/index.mjs", import.meta.url);
  if (existsSync(driver)) return (await import(driver.href)).launch();
  const { launchBrowser } = await import("./harness.mjs");
  const browser = await launchBrowser();
  return {
    newContext: async () => {
      const context = await browser.newContext();
      return { newPage: () => context.newPage(), close: () => context.close() };
    },
    close: () => browser.close(),
  };
}

const ALL_CASES = generateCases();
// CONTRACT_ONLY=<regexp> runs the cases whose id or group matches (for debugging).
const only = process.env.CONTRACT_ONLY ? new RegExp(process.env.CONTRACT_ONLY) : null;
// CONTRACT_PAGE=<query> runs the matrix and the scenarios on the fixture page
// with that query (e.g. "stale=on": with stale copies on).
const PAGE_QUERY = process.env.CONTRACT_PAGE ?? "";
const CASES = only ? ALL_CASES.filter((c) => only.test(c.id) || only.test(c.group)) : ALL_CASES;
const MAX_CASES_PER_PAGE = 80;
// The module keeps at most 64 unfinished idempotency actions per tab; a page
// gets fewer mutations than that, so the ledger's limit is not what is tested here.
const MAX_MUTATIONS_PER_PAGE = 50;

let server;
let browser;
const outcome = new Map(); // case id → {c, diffs, notes}
const pageProblems = [];

function inScope(url) {
  return [server.o1, server.o2].some((o) => url.startsWith(`${o}/in/`));
}

// CONTRACT_SELF=1 compares native fetch with itself: a check of the suite
// (its fixture, timing allowances and comparisons), not of the module.
const SELF = process.env.CONTRACT_SELF === "1";

/** A fresh context and page on the fixture page (query: e.g. "stale=on"), once the module is ready. */
async function openPage(query = "") {
  const context = await browser.newContext();
  const page = await context.newPage();
  const q = [SELF ? "self=1" : "", query].filter(Boolean).join("&");
  await page.goto(`${server.o1}/page.html${q ? `?${q}` : ""}`);
  await page.waitForFunction(() => window.contract && (window.contract.ready || window.contract.error), null, { timeout: 15_000 });
  const error = await page.evaluate(() => window.contract.error);
  if (error) throw new Error(`the module did not start: ${error}`);
  return { page, context };
}

function batches(cases) {
  const out = [];
  let cur = [];
  let mutations = 0;
  for (const c of cases) {
    const m = mayCarryKey(c) ? 1 : 0;
    if (cur.length >= MAX_CASES_PER_PAGE || mutations + m > MAX_MUTATIONS_PER_PAGE) {
      out.push(cur);
      cur = [];
      mutations = 0;
    }
    cur.push(c);
    mutations += m;
  }
  if (cur.length) out.push(cur);
  return out;
}

const debug = process.env.CONTRACT_DEBUG ? (...a) => console.error("[contract]", ...a) : () => {};

/**
 * Sends one more request per side and origin after a run, through the fetch
 * that side used (page.js: sentinel), and waits until the server has logged
 * them: what the run sent before them, a request sent after its caller was
 * answered included, is then in the log. Fails if they never arrive.
 */
async function sentinels(page, id) {
  const ids = await page.evaluate((i) => ["n", "m"].flatMap((side) => window.contract.sentinel(side, i)), id);
  const what = async () => {
    const got = await page.evaluate(() => window.contract.sentinels).catch((e) => `unreadable: ${e.message}`);
    return `; what the page's fetches got: ${JSON.stringify(got)}`;
  };
  await server.sentinel(ids, 10_000, what);
}

async function runBatch(cases) {
  const t0 = Date.now();
  const { page, context } = await openPage(PAGE_QUERY);
  const t1 = Date.now();
  try {
    const { results, problems } = await page.evaluate((cs) => window.contract.run(cs), cases);
    debug(`${cases.length} cases (${cases[0].id}…): page ${t1 - t0} ms, run ${Date.now() - t1} ms`);
    pageProblems.push(...problems);
    await sentinels(page, cases[0].id);
    // A pair the page ran again (an abort timer late on one side) has the tokens of its last run.
    const sides = (c) => ({ n: `${c.id}~n${results[c.id]?.again ?? ""}`, m: `${c.id}~m${results[c.id]?.again ?? ""}` });
    const records = await server.records(cases.flatMap((c) => Object.values(sides(c))));
    for (const c of cases) {
      const run = results[c.id];
      if (!run) {
        outcome.set(c.id, { c, diffs: [{ field: "ran", native: "yes", module: "no result" }], notes: [] });
        continue;
      }
      const ids = sides(c);
      let { diffs, notes } = caseDiffs(c, run, { n: records[ids.n], m: records[ids.m] }, SELF ? () => false : inScope);
      if (run.again) notes = [...notes, `ran ${Number(run.again) + 1} times: an abort timer fired late on one side`];
      // WebKit cannot send a stream body; a Request built from one has a
      // body the module reads for its idempotency key, and then sends as
      // bytes (docs/contract.md names this difference).
      if ((browser.engine ?? "chromium") === "webkit" && c.input === "Request" && c.body?.kind === "stream" && run.n?.errName === "NotSupportedError") {
        notes = [...notes, "webkit: a Request with a stream body is sent as bytes by the module"];
        diffs = [];
      }
      // WebKit's own fetch loses the abort of a Request the page let go of
      // once the collector took it (page.js: held); the module still aborts
      // (docs/contract.md names this difference). Only that difference is allowed.
      if ((browser.engine ?? "chromium") === "webkit" && c.drop && run.n?.body?.len !== undefined && run.m?.body?.error?.errName === "AbortError") {
        const lost = new Set(["body", "server[0].ended"]);
        if (diffs.length && diffs.every((d) => lost.has(d.field))) {
          notes = [...notes, "webkit: native fetch lost the abort of a Request the page let go of; the module aborted"];
          diffs = [];
        }
      }
      outcome.set(c.id, { c, diffs, notes, run, records: { n: records[ids.n], m: records[ids.m] } });
    }
  } finally {
    await context.close();
  }
}

function report() {
  const dir = `${root}build/contract`;
  mkdirSync(dir, { recursive: true });
  const failing = [...outcome.values()].filter((o) => o.diffs.length);
  writeFileSync(
    `${dir}/report.json`,
    JSON.stringify(
      {
        cases: outcome.size,
        failing: failing.map((o) => ({ id: o.c.id, group: o.c.group, case: describeCase(o.c), diffs: o.diffs, run: o.run, records: o.records })),
        notes: [...outcome.values()].filter((o) => o.notes.length).map((o) => ({ id: o.c.id, notes: [...new Set(o.notes)] })),
      },
      null,
      1,
    ),
  );
}

// The matrix (one page after the other) and the scenarios (in a page of
// their own) run at the same time in Chromium; the tests below wait for
// their part. Firefox throttles the timers of a tab in the background, which
// would move the suite's aborts: there, one page at a time.
let matrixDone;
let scenariosDone;
before(async () => {
  server = await startContractServer();
  browser = await openBrowser();
  matrixDone = runMatrix();
  const oneAtATime = (browser.engine ?? "chromium") !== "chromium";
  scenariosDone = oneAtATime ? matrixDone.then(runScenarios, runScenarios) : runScenarios();
  matrixDone.catch(() => {});
  scenariosDone.catch(() => {});
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

async function runMatrix() {
  for (const b of batches(CASES)) await runBatch(b);
  report();
}

describe("gatewayCircuit.fetch with the circuit closed is native fetch", () => {
  before(() => matrixDone, { timeout: 300_000 });

  test(`the matrix has at least 300 cases and every one ran (${CASES.length})`, () => {
    assert.ok(ALL_CASES.length >= 300, `${ALL_CASES.length} cases`);
    assert.equal(outcome.size, CASES.length);
  });

  for (const [key, name] of Object.entries(GROUPS)) {
    test(name, () => {
      const mine = [...outcome.values()].filter((o) => o.c.group === key);
      assert.ok(mine.length > 0 || only, `no cases in group ${key}`);
      const failing = mine.filter((o) => o.diffs.length);
      if (failing.length) {
        assert.fail(`${failing.length} of ${mine.length} cases differ:\n${failing.map((o) => formatFailure(describeCase(o.c), o.diffs, o.notes)).join("\n")}`);
      }
    });
  }

  test("the page saw no unhandled rejection or uncaught error", () => {
    assert.deepEqual(pageProblems, []);
  });
});

// Concurrent scenarios: the same calls made through native fetch and through
// the module, one scenario after the other in one page (each with its own
// URLs, the circuit cleared before each; the policy checks come last).
// Coalescing is the module's documented policy, so in scope the module may send fewer requests
// than native, but never one native would not send, nor fewer kinds; and
// where every native request of a kind was cut short, so must the module's be.

/** Runs a scenario through both fetches on page; returns what each caller saw and what the server got. */
async function scenario(page, id, kind, spec) {
  const n = await page.evaluate(([k, i, s]) => window.contract.scenario(k, "n", i, s), [kind, id, spec]);
  const m = await page.evaluate(([k, i, s]) => window.contract.scenario(k, "m", i, s), [kind, id, spec]);
  await sentinels(page, id);
  const records = await server.records([`${id}~n`, `${id}~m`]);
  return { n, m, rn: records[`${id}~n`], rm: records[`${id}~m`] };
}

const requestKey = (r, dropKey, withEnd) =>
  JSON.stringify({
    origin: r.origin,
    method: r.method,
    url: r.url,
    headers: dropKey ? r.headers.filter(([k]) => k !== "idempotency-key") : r.headers,
    body: r.body,
    ended: withEnd ? r.ended : undefined,
  });

/**
 * Differences between the native and the module run of a scenario: per
 * caller, then the requests ("exact": the same multiset; "distinct": the same
 * kinds of request, identical ones may be shared), then the circuit.
 */
function scenarioDiffs(r, requests) {
  const notes = [];
  const diffs = [];
  r.n.callers.forEach((c, i) => diffs.push(...clientDiffs(c, r.m.callers[i], `caller[${i}].`, notes)));
  const exact = requests === "exact";
  const a = r.rn.map((x) => requestKey(x, false, exact)).sort();
  const b = r.rm.map((x) => requestKey(x, true, exact)).sort();
  const [x, y] = exact ? [a, b] : [[...new Set(a)], [...new Set(b)]];
  const show = (l) => l.map((k) => JSON.parse(k)).map((q) => `${q.method} ${q.url}${q.ended ? ` (${q.ended})` : ""}`);
  if (!(x.length === y.length && x.every((v, i) => v === y[i]))) {
    diffs.push({
      field: exact ? "requests at the server" : "kinds of request at the server",
      native: `${x.length}`,
      module: `${y.length}`,
      detail: { native: show(x.filter((k) => !y.includes(k))), module: show(y.filter((k) => !x.includes(k))) },
    });
  }
  if (!exact) {
    for (const kind of x) {
      const ended = (list, drop) => list.filter((q) => requestKey(q, drop, false) === kind).map((q) => q.ended);
      const mine = ended(r.rm, true);
      if (ended(r.rn, false).every((e) => e === "closed") && mine.some((e) => e !== "closed")) {
        diffs.push({ field: `${show([kind])[0]}: connection`, native: "closed early (every caller aborted)", module: mine.join(", ") });
      }
    }
  }
  if (r.m.circuit !== null && !SELF) diffs.push({ field: "circuit after", native: "closed", module: r.m.circuit });
  diffs.push(...r.m.problems.map((p) => ({ field: "page problem", native: "none", module: p })));
  return diffs;
}

const shortSpec = (spec) => JSON.stringify(spec, (k, v) => (typeof v === "string" && v.length > 80 ? `${v.slice(0, 40)}…(${v.length})` : v));

const echo = (extra = "") => `/in/{T}/echo?d=200${extra}`;
const hdr = (entries) => ({ form: "object", entries });
const long8k = "q".repeat(8300);
const key = (x) => x.headers.find(([k]) => k === "idempotency-key")?.[1];

/**
 * name → [kind of scenario, spec, check]. check is "distinct" or "exact"
 * (compared with native, see scenarioDiffs) or a function of the result for
 * policies native fetch does not have.
 */
const SCENARIOS = {
  "a cors caller does not get a no-cors caller's opaque answer": ["together", { url: "{O2}/in/{T}/echo?cors=1&d=200", callers: [{ mode: "no-cors" }, { mode: "cors" }, {}] }],
  "a default caller does not get a redirect: manual caller's opaqueredirect": [
    "together",
    { url: "/in/{T}/redir?code=302&n=0&d=200", callers: [{ redirect: "manual" }, {}, { redirect: "error" }] },
  ],
  "credentials omit, include and default each get their own answer (with a cookie)": [
    "together",
    { url: echo(), callers: [{ credentials: "include" }, { credentials: "omit" }, {}, { credentials: "omit" }] },
  ],
  "callers with different headers each get their own answer": ["together", { url: echo(), callers: [{ headers: hdr([["x-v", "1"]]) }, { headers: hdr([["x-v", "2"]]) }, {}] }],
  "cache, referrerPolicy and integrity are part of what makes two requests the same": [
    "together",
    { url: "/in/{T}/fixed?d=200", callers: [{}, { cache: "no-store" }, { referrerPolicy: "no-referrer" }, { integrity: "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" }] },
  ],
  "two GETs whose URLs differ after 8.2 KB are two requests with two answers": [
    "together",
    { url: echo(), callers: [{ url: `${echo()}&pad=${long8k}&v=1` }, { url: `${echo()}&pad=${long8k}&v=2` }] },
  ],
  "a long header before authorization does not let user B share user A's answer": [
    "together",
    {
      url: echo(),
      callers: [{ headers: hdr([["a-long", "v".repeat(9000)], ["authorization", "Bearer A"]]) }, { headers: hdr([["a-long", "v".repeat(9000)], ["authorization", "Bearer B"]]) }],
    },
  ],
  "the leader aborted while others wait: the others get the answer": ["together", { url: "/in/{T}/echo?d=1000", callers: [{ signal: { kind: "abort", ms: 50 } }, {}, {}] }],
  "a waiter that aborts does not cancel the others": ["together", { url: "/in/{T}/echo?d=1000", callers: [{}, { signal: { kind: "abort", ms: 50 } }, {}] }],
  "every caller aborts mid-download: the download stops": [
    "together",
    { url: "/in/{T}/big?trickle=1", callers: [{ signal: { kind: "inBody", ms: 100 } }, { signal: { kind: "inBody", ms: 100 } }] },
    (r) => {
      // A documented difference (docs/contract.md): callers sharing a flight
      // share one download, which stops when the last of them aborts, and
      // every body then errors with that caller's reason (an AbortError).
      // (WebKit errors a body whose download another signal cut with a TypeError.)
      const cut = (browser.engine ?? "chromium") === "webkit" ? /"errName":"(AbortError|TypeError)"/ : /"errName":"AbortError"/;
      const diffs = scenarioDiffs(r, "distinct").filter((d) => !/^caller\[\d+\]\.body$/.test(d.field) || !cut.test(JSON.stringify(d.module)));
      if (diffs.length) assert.fail(formatFailure("every caller aborts mid-download", diffs));
      for (const c of r.m.callers) assert.match(JSON.stringify(c.body), /AbortError|TypeError/, "each body read is aborted");
    },
  ],
  // The abort comes mid-body (100 ms after the headers), so nothing races:
  // compared like any other scenario (Firefox's native body error is a plain
  // AbortError, not the reason: the reason is allowed, see compare.mjs).
  "the only caller aborts mid-download: the download stops": ["together", { url: "/in/{T}/big?trickle=1", callers: [{ signal: { kind: "inBody", ms: 100 } }] }],
  "different URLs at once each get their own answer": [
    "together",
    { url: echo(), callers: Array.from({ length: 12 }, (_, i) => ({ url: `/in/{T}/echo?d=50&i=${i}`, headers: i % 2 ? hdr([["x-i", String(i)]]) : undefined })) },
    "exact",
  ],
  "out-of-scope identical fetches are not coalesced": ["together", { url: "/out/{T}/echo?d=150", callers: [{}, {}, {}, {}] }, "exact"],
  "abort then refetch of the same URL gets a fresh answer (React StrictMode)": ["abortThenRefetch", { url: "/in/{T}/echo" }],
  "cancel then refetch while the first is in flight gets a fresh answer (TanStack)": ["abortThenRefetch", { url: "/in/{T}/echo?d=1000", after: 50 }],
  "a pre-aborted signal sends nothing and rejects with the reason, for any method, every time": [
    "preAborted",
    {
      url: "/in/{T}/echo",
      rounds: 10,
      callers: [{}, { headers: hdr([["x-a", "1"]]) }, { method: "POST", body: { kind: "string", text: "x" } }, { method: "HEAD" }, { input: "Request" }],
    },
    "exact",
  ],
  "an opaque answer is an answer: the same URL is asked again, the circuit stays closed": [
    "sequence",
    { url: "{O2}/in/{T}/echo", callers: [{ mode: "no-cors" }, { mode: "no-cors" }, { mode: "no-cors" }] },
    "exact",
  ],
  "an opaque answer does not stop a cors request to the same URL": ["sequence", { url: "{O2}/in/{T}/echo?cors=1", callers: [{ mode: "no-cors" }, {}, { mode: "no-cors" }] }, "exact"],
  "a POST Request with a body answered 429 + Retry-After: 1 is retried with its body": [
    "sequence",
    { url: "/in/p/60/{T}/seq?codes=429,200&ra=1", callers: [{ input: "Request", method: "POST", body: { kind: "string", text: '{"order":1}' } }] },
    (r) => {
      const [got] = r.m.callers;
      assert.equal(got.outcome, "resolve", `module: ${got.errName}: ${got.errMessage}`);
      assert.equal(got.status, 200, "the retry's answer");
      assert.equal(r.rm.length, 2, "the POST went out twice");
      assert.equal(r.rm[1].body, r.rm[0].body, "with the same body");
      assert.equal(key(r.rm[1]), key(r.rm[0]), "and the same Idempotency-Key");
      assert.equal(r.rn.length, 1, "native: one request (the fixture works)");
    },
  ],
  "joiners keep their answer when the leader aborts during a 429 wait": [
    "together",
    { url: "/in/p/61/{T}/seq?codes=429,200&ra=1", callers: [{ signal: { kind: "abort", ms: 400 } }, {}, {}] },
    (r) => {
      const [leader, ...joiners] = r.m.callers;
      assert.equal(leader.outcome, "reject", "the leader's caller aborted");
      assert.equal(leader.errName, "AbortError");
      for (const j of joiners) {
        assert.equal(j.outcome, "resolve", `a joiner lost its answer: ${j.errName}: ${j.errMessage}`);
        assert.equal(j.status, 200, "the retry's answer");
      }
      assert.deepEqual(r.m.problems, []);
    },
  ],
  "metrics().network counts the requests the quiet path sends": [
    "together",
    { url: "/in/{T}/echo", callers: Array.from({ length: 5 }, (_, i) => ({ url: `/in/{T}/echo?i=${i}` })) },
    (r) => {
      assert.equal(r.rm.length, 5);
      assert.equal(r.m.network, r.rm.length, "network counter vs requests at the server");
    },
  ],
  "65 mutations in a row in one tab are all sent (no refusal for a limit the caller did not choose)": [
    "sequence",
    {
      url: "/in/{T}/echo",
      callers: Array.from({ length: 65 }, (_, i) => ({ url: `/in/{T}/echo?order=${i}`, method: "POST", body: { kind: "string", text: `{"n":${i}}` } })),
    },
    "exact",
  ],
};

const scenarioResults = new Map();

async function runScenarios() {
  const { page, context } = await openPage(PAGE_QUERY);
  try {
    for (const [i, [name, [kind, spec]]] of Object.entries(SCENARIOS).entries()) {
      const t0 = Date.now();
      scenarioResults.set(name, await scenario(page, `s${i.toString(36)}`, kind, spec).catch((e) => e));
      debug(`scenario ${i}: ${Date.now() - t0} ms`);
    }
  } finally {
    await context.close();
  }
}

describe("concurrent callers each get what native fetch gives them", () => {
  const results = scenarioResults;
  before(() => scenariosDone, { timeout: 300_000 });

  for (const [name, [, spec, check = "distinct"]] of Object.entries(SCENARIOS)) {
    test(name, () => {
      const r = results.get(name);
      if (r instanceof Error) throw r;
      if (typeof check === "function") return check(r);
      const diffs = scenarioDiffs(r, check);
      if (diffs.length) assert.fail(formatFailure(`${name}: ${shortSpec(spec)}`, diffs));
    });
  }
});

describe('with data-stale="on"', () => {
  test("a long header before authorization does not give user B user A's stale copy", async () => {
    const who = (name) => ({ headers: hdr([["a-long", "v".repeat(9000)], ["authorization", `Bearer ${name}`]]) });
    // A's GET is answered 200 (kept as a stale copy), then B's is answered 502.
    const spec = { url: "/in/{T}/seq?codes=200,502&cc=max-age%3D0", callers: [who("A"), who("B")] };
    const { page, context } = await openPage("stale=on");
    try {
      const r = await scenario(page, "stale", "sequence", spec);
      const diffs = r.n.callers.flatMap((c, i) => clientDiffs(c, r.m.callers[i], `caller[${i}].`));
      if (diffs.length) assert.fail(formatFailure(`user A then user B: ${shortSpec(spec)}`, diffs));
    } finally {
      await context.close();
    }
  });
});

// Streams the caller reads, then cancels: what native fetch does to the
// connection, the module must do too, with stale copies on and off. The
// server's record is the ground truth: whether the connection was closed
// before the answer was written whole, and how many bytes it sent.
const LONG_SSE = "/in/{T}/sse?n=400&every=250"; // 100 s of events: a connection held for it is still open when the test looks
const STREAMS = {
  "an event stream read, then cancelled": { url: LONG_SSE, callers: [{}] },
  "a 50 MB body sent slowly with its Content-Length, read, then cancelled": { url: "/in/{T}/slow", callers: [{}] },
  "a 50 MB body sent slowly without a Content-Length, read, then cancelled": { url: "/in/{T}/slow?length=none", callers: [{}] },
  "a 4 MB body sent slowly (a copy may be kept of it), read, then cancelled": { url: "/in/{T}/slow?size=4000000&step=200000", callers: [{}] },
  "six event streams read and cancelled, then an ordinary GET is answered": {
    url: LONG_SSE,
    callers: Array.from({ length: 6 }, (_, i) => ({ url: `${LONG_SSE}&i=${i}` })),
    then: "/in/{T}/echo",
  },
};

/** What each side's callers saw and what the server recorded, as differences from native (the fixture checked first). */
function streamDiffs(r, spec) {
  const diffs = [];
  const sent = (recs) => recs.map((q) => `${q.url.replace(/^.*~\*~/, "")}: ${q.ended}, ${q.sent} B`).join("; ");
  r.n.callers.forEach((n, i) => {
    const m = r.m.callers[i];
    if (JSON.stringify(n) !== JSON.stringify(m)) diffs.push({ field: `caller[${i}]`, native: JSON.stringify(n), module: JSON.stringify(m) });
  });
  const streams = (recs) => recs.filter((q) => !q.url.includes("/echo"));
  const held = (recs) => streams(recs).filter((q) => q.ended !== "closed");
  if (held(r.rn).length) throw new Error(`the fixture: native fetch did not close every stream (${sent(r.rn)})`);
  if (streams(r.rm).length !== spec.callers.length || held(r.rm).length) {
    diffs.push({ field: "connections at the server", native: sent(streams(r.rn)), module: sent(streams(r.rm)) });
  }
  diffs.push(...r.m.problems.map((p) => ({ field: "page problem", native: "none", module: p })));
  return diffs;
}

for (const [label, query] of [
  ["by default", ""],
  ['with data-stale="on"', "stale=on"],
]) {
  describe(`a stream the caller cancels is cancelled at the server, ${label}`, () => {
    for (const [name, spec] of Object.entries(STREAMS)) {
      test(name, async () => {
        const { page, context } = await openPage(query);
        try {
          const id = `x${query ? "s" : "d"}${Object.keys(STREAMS).indexOf(name)}`;
          const r = await scenario(page, id, "readThenCancel", spec);
          const diffs = streamDiffs(r, spec);
          if (diffs.length) assert.fail(formatFailure(`${name} (${label}): ${shortSpec(spec)}`, diffs));
        } finally {
          await context.close();
        }
      });
    }
  });
}
