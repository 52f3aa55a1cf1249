// The generated matrix of the fetch contract suite. Each case is plain JSON
// that e2e/contract/page.js turns into a fetch call (fresh objects for every
// run); `group` is the name of the test that checks it.
//
// A case's url is a template: {T} becomes the run's token (a path segment the
// server files the request under), {O2} the second origin. /in/ is in the
// module's scope on both origins, /out/ is not; /in/p/<slot>/ are scope
// entries of their own, so a 429's pause stays with its case.
//
// Phases: 0 runs in parallel; 1 (answers that may arm the circuit) and 2
// (429s, which pause their slot) run one at a time with clear() around them.

import { createHash } from "node:crypto";

export const GROUPS = {
  forms: "every method and input form answers like native fetch",
  bodies: "request bodies of every kind reach the server byte for byte",
  bigBody: "a mutation with a body over 1 MiB is sent as native sends it",
  long: "long URLs and header values (over 8 KiB, and a POST URL over 2,048 bytes) are sent whole",
  headers: "odd request headers are sent exactly as native sends them",
  redirects: "redirect chains are followed, stopped or refused like native",
  redirectOut: "a redirect from in scope to an out-of-scope 502 leaves the circuit closed",
  errors: "4xx and 5xx answers reach the caller unchanged (only in-scope trip statuses may arm the circuit)",
  tooMany: "429 answers, with and without Retry-After, reach the caller unchanged",
  cors: "cross-origin answers: CORS, opaque no-cors and refused ones, with every credentials mode",
  options: "fetch options (cache, credentials, referrer, priority, keepalive, integrity, mode) are honoured",
  signals: "aborts and timeouts reject like native, with the signal's reason, and stop the download",
  outOfScope: "out-of-scope requests are passed through untouched",
  resets: "a reset connection rejects like native",
  bad: "bad inputs reject like native and never throw synchronously",
};

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
const MUTATIONS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const INPUTS = ["string", "URL", "Request"];
const JSON_BODY = { kind: "string", text: '{"b":2,"a":[1,"x"]}' };
const jsonHeaders = { form: "object", entries: [["content-type", "application/json"]] };

/** The Subresource Integrity value of the "fixed" answer. */
const FIXED_SRI = `sha256-${createHash("sha256").update("hello\n").digest("base64")}`;

const bodyFor = (method) => (MUTATIONS.has(method) && method !== "DELETE" ? JSON_BODY : undefined);

export function generateCases() {
  const cases = [];
  let slot = 0;
  // "racy": an abort this early may come before or after the request is sent
  // (on a loaded machine, even 100 ms), with native fetch too.
  const racy = (s) => (s?.kind === "abort" || s?.kind === "timeout") && s.ms <= 100;
  const add = (group, c) => cases.push({ id: `k${cases.length.toString(36)}`, group, phase: 0, ...c, racy: racy(c.signal) || undefined });

  // Every method × input form × a plain answer.
  const answers = [
    ["echo", ""],
    ["echo", "?code=204"],
    ["echo", "?code=304"],
    ["echo", "?code=404&text=Nope"],
    ["echo", "?code=500"],
  ];
  for (const [a, q] of answers)
    for (const method of METHODS)
      for (const input of INPUTS) {
        const body = bodyFor(method);
        add("forms", { url: `/in/{T}/${a}${q}`, input, method, body, headers: body ? jsonHeaders : undefined });
      }
  // Without init at all, and the 2.5 MB answer.
  for (const input of INPUTS) {
    add("forms", { url: "/in/{T}/echo", input });
    add("forms", { url: "/in/{T}/big", input });
    add("forms", { url: "/in/{T}/big", input, method: "POST", body: JSON_BODY });
  }

  // Bodies.
  const bodies = [
    { kind: "string", text: "plain text" },
    { kind: "string", text: "" },
    { kind: "string", text: "한국어 ünïcode" },
    { kind: "blob", text: "blob bytes", type: "application/x-thing" },
    { kind: "blob", text: "untyped blob" },
    { kind: "formdata" },
    { kind: "params", entries: [["a", "1"], ["b", "x y&z"], ["a", "2"]] },
    { kind: "arraybuffer", n: 1000 },
    { kind: "uint8", n: 70_000 },
    { kind: "subarray", n: 300 },
    { kind: "dataview", n: 64 },
    { kind: "stream" },
  ];
  for (const body of bodies) {
    const duplex = body.kind === "stream" ? "half" : undefined;
    for (const method of ["POST", "PATCH"])
      for (const input of ["string", "Request"]) add("bodies", { url: "/in/{T}/echo", input, method, body, duplex });
    for (const method of ["PUT", "DELETE"]) add("bodies", { url: "/in/{T}/echo", input: "string", method, body, duplex });
    add("bodies", { url: "/in/{T}/echo", input: "string", method: "POST", body, duplex, headers: { form: "object", entries: [["content-type", "text/x-custom"]] } });
  }
  for (const input of ["string", "Request"])
    add("bigBody", { url: "/in/{T}/echo", input, method: "POST", body: { kind: "uint8", n: 1_500_000 } });

  // Long URLs and long header values.
  for (const len of [2100, 8300, 9000, 40_000])
    for (const method of ["GET", "HEAD", "POST", "DELETE"]) {
      const pad = "a".repeat(len);
      add("long", { url: `/in/{T}/echo?pad=${pad}`, input: "string", method, body: bodyFor(method) });
    }
  for (const len of [9000, 20_000])
    for (const method of ["GET", "POST"])
      for (const input of ["string", "Request"])
        add("long", {
          url: "/in/{T}/echo",
          input,
          method,
          body: bodyFor(method),
          headers: { form: "object", entries: [["a-long", { long: len, fill: "v" }], ["authorization", "Bearer A"]] },
        });
  add("long", {
    url: `/in/{T}/echo?pad=${"b".repeat(9000)}`,
    input: "Request",
    method: "GET",
    headers: { form: "Headers", entries: [["x-long", { long: 9000 }]] },
  });

  // Odd request headers, in every form.
  const odd = [
    [["x-one", "1"]],
    Array.from({ length: 40 }, (_, i) => [`x-h${i}`, `v${i}`]),
    [["X-MiXeD-CaSe", "Value"]],
    [["x-dup", "1"], ["x-dup", "2"]],
    [["x-empty", ""]],
    [["x-spaces", "  padded  "]],
    [["x-tab", "a\tb"]],
    [["x-latin1", "caf\u00e9"]],
    [["cookie", "forged=1"], ["host", "evil.example"], ["content-length", "1"], ["origin", "http://evil.example"], ["referer", "http://evil.example/"]],
    [["accept", "application/x-custom"], ["accept-language", "ko-KR"], ["content-language", "ko"]],
    [["authorization", "Bearer token"]],
    [["content-type", "application/json"]],
    [["range", "bytes=0-9"]],
    [["cache-control", "no-cache"], ["pragma", "no-cache"]],
    [["x-http-method-override", "DELETE"]],
    [["if-none-match", '"abc"']],
    [["traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"]],
    [["idempotency-key", '"caller-chosen-key"']],
  ];
  const forms = ["object", "array", "Headers"];
  odd.forEach((entries, i) => {
    for (const method of ["GET", "POST"])
      for (const input of ["string", "Request"]) {
        const form = entries.some(([k], j) => entries.findIndex(([x]) => x === k) !== j) ? "array" : forms[i % 3];
        add("headers", { url: "/in/{T}/echo", input, method, body: bodyFor(method), headers: { form, entries } });
      }
  });

  // Redirects.
  for (const code of [301, 302, 303, 307, 308])
    for (const method of ["GET", "POST"])
      for (const redirect of [undefined, "follow", "manual", "error"])
        add("redirects", { url: `/in/{T}/redir?code=${code}&n=0`, input: "string", method, body: bodyFor(method), redirect });
  for (const redirect of [undefined, "manual"]) {
    add("redirects", { url: "/in/{T}/redir?code=302&n=2", input: "Request", redirect });
    add("redirects", { url: `/in/{T}/redir?code=302&n=0&to=${encodeURIComponent("{O2}/in/{T}/echo?cors=1")}`, input: "string", redirect });
    add("redirects", { url: `/in/{T}/redir?code=307&n=0&to=${encodeURIComponent("/out/{T}/echo")}`, input: "string", method: "POST", body: JSON_BODY, redirect });
  }
  add("redirects", { url: "/in/{T}/redir?code=302&n=25", input: "string" });
  add("redirects", { url: `/in/{T}/redir?code=302&n=0&to=${encodeURIComponent("{O2}/in/{T}/echo")}`, input: "string" });
  add("redirects", { url: `/in/{T}/redir?code=302&n=0&to=${encodeURIComponent("{O2}/in/{T}/echo")}`, input: "string", mode: "no-cors" });

  // In scope → out of scope.
  for (const code of [502, 503, 504]) {
    const to = encodeURIComponent(`/out/{T}/echo?code=${code}`);
    add("redirectOut", { url: `/in/{T}/redir?code=302&n=0&to=${to}`, input: "string", phase: 1 });
    add("redirectOut", { url: `/in/{T}/redir?code=307&n=1&to=${to}`, input: "Request", method: "POST", body: JSON_BODY, phase: 1 });
  }
  add("redirectOut", { url: `/in/{T}/redir?code=302&n=0&to=${encodeURIComponent("/out/{T}/reset")}`, input: "string", phase: 1 });

  // 4xx and 5xx.
  for (const code of [400, 401, 403, 404, 405, 409, 410, 418, 422, 451, 500, 501, 502, 503, 504, 505])
    for (const method of ["GET", "POST"])
      add("errors", { url: `/in/{T}/echo?code=${code}`, input: method === "GET" ? "string" : "Request", method, body: bodyFor(method), phase: code >= 502 && code <= 504 ? 1 : 0 });
  for (const input of INPUTS) add("errors", { url: "/in/{T}/echo?code=503&ra=7", input, phase: 1 });

  // 429: a Retry-After of 10 s or less is waited out and retried once, and so
  // is the 5 s pause the module chooses when there is none (documented).
  for (const ra of [null, "0", "1", "120"])
    for (const method of ["GET", "POST"])
      for (const input of ["string", "Request"]) {
        const q = ra === null ? "" : `&ra=${ra}`;
        add("tooMany", {
          url: `/in/p/${slot++}/{T}/echo?code=429${q}`,
          input,
          method,
          body: bodyFor(method),
          phase: 2,
          retry429: ra === null || Number(ra) <= 10,
        });
      }

  // Cross-origin.
  for (const cors of [true, false])
    for (const mode of [undefined, "cors", "no-cors", "same-origin"])
      for (const credentials of [undefined, "omit", "include"])
        for (const method of ["GET", "POST"])
          add("cors", {
            url: `{O2}/in/{T}/echo${cors ? "?cors=1" : ""}`,
            input: method === "GET" ? "string" : "Request",
            method,
            mode,
            credentials,
            // A JSON body needs a preflight either way: the Idempotency-Key adds no extra one.
            body: bodyFor(method),
            headers: method === "POST" ? jsonHeaders : undefined,
          });
  add("cors", { url: "{O2}/in/{T}/echo?cors=1", input: "string", method: "PUT", body: { kind: "string", text: "x" } });
  add("cors", { url: "{O2}/in/{T}/big?cors=1", input: "string" });
  add("cors", { url: "{O2}/in/{T}/echo?code=404", input: "string", mode: "no-cors" });
  add("cors", { url: "{O2}/in/{T}/echo?code=500", input: "string", mode: "no-cors" });

  // Options, same origin.
  const options = [
    ...["default", "no-store", "reload", "no-cache", "force-cache"].map((cache) => ({ cache })),
    { cache: "only-if-cached", mode: "same-origin" },
    ...["omit", "same-origin", "include"].map((credentials) => ({ credentials })),
    ...[
      "no-referrer",
      "origin",
      "unsafe-url",
      "same-origin",
      "strict-origin",
      "origin-when-cross-origin",
      "no-referrer-when-downgrade",
      "strict-origin-when-cross-origin",
    ].map((referrerPolicy) => ({ referrerPolicy })),
    ...["", "/elsewhere?x=1", "about:client"].map((referrer) => ({ referrer })),
    ...["high", "low", "auto"].map((priority) => ({ priority })),
    ...["same-origin", "cors", "no-cors"].map((mode) => ({ mode })),
    { keepalive: true },
    { keepalive: true, method: "POST", body: JSON_BODY },
    { integrity: FIXED_SRI, fixed: true },
    { integrity: "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", fixed: true },
  ];
  for (const o of options)
    for (const input of ["string", "Request"]) {
      const { fixed, ...rest } = o;
      add("options", { url: fixed ? "/in/{T}/fixed" : "/in/{T}/echo", input, ...rest });
    }

  // Signals.
  const fast = [{ kind: "pre" }, { kind: "pre", reason: "error" }, { kind: "pre", reason: "string" }, { kind: "abort", ms: 2000 }, { kind: "timeout", ms: 5000 }];
  const slow = [
    { kind: "pre" },
    { kind: "abort", ms: 0 },
    { kind: "abort", ms: 10 },
    { kind: "abort", ms: 100 },
    { kind: "abort", ms: 100, reason: "error" },
    { kind: "abort", ms: 100, reason: "string" },
    { kind: "timeout", ms: 60 },
  ];
  // "inBody": the abort comes that long after the answer's headers, mid-body.
  // The timeout fires mid-body (the body takes ~3 s): at 700 ms a loaded machine once gave native fetch its headers
  // later than that, and at 1000 ms WebKit on a loaded machine gave the module's call its headers later.
  const trickle = [{ kind: "inBody", ms: 100 }, { kind: "inBody", ms: 100, reason: "error" }, { kind: "timeout", ms: 2000 }];
  for (const method of ["GET", "POST"]) {
    const body = bodyFor(method);
    for (const signal of fast) add("signals", { url: "/in/{T}/echo", input: "string", method, body, signal });
    for (const signal of slow) add("signals", { url: "/in/{T}/echo?d=1000", input: "string", method, body, signal });
    for (const signal of trickle) add("signals", { url: "/in/{T}/big?trickle=1", input: "string", method, body, signal });
  }
  for (const signal of [{ kind: "pre" }, { kind: "abort", ms: 100 }]) {
    add("signals", { url: "/in/{T}/echo?d=1000", input: "Request", signal });
    add("signals", { url: "/in/{T}/echo?d=1000", input: "Request", method: "PUT", body: JSON_BODY, signal });
    add("signals", { url: "/in/{T}/big?trickle=1", input: "Request", signal: signal.ms ? { kind: "inBody", ms: 100 } : signal });
  }
  // The abort of a Request's own signal mid-body, after the engine collected
  // garbage (page.js: collectGarbage), with the Request held by the page and
  // let go of (drop). The body streams for 15 s unless aborted; here a
  // collection was seen within 0.1–4.8 s (page.js waits for one up to 8 s).
  for (const drop of [undefined, true])
    add("signals", { url: "/in/{T}/slow?size=2500000&step=25000&every=150", input: "Request", signal: { kind: "inBody", ms: 100, gc: true }, drop });
  add("signals", { url: "/in/{T}/echo?d=1000", input: "string", headers: { form: "object", entries: [["x-a", "1"]] }, signal: { kind: "abort", ms: 100 } });
  add("signals", { url: "{O2}/in/{T}/echo?d=1000&cors=1", input: "string", signal: { kind: "abort", ms: 100 } });
  add("signals", { url: "{O2}/in/{T}/echo?d=1000", input: "string", mode: "no-cors", signal: { kind: "abort", ms: 100 } });

  // Out of scope: nothing may change, not even a 429's retry or a 502's circuit.
  for (const [q, phase] of [["", 0], ["?code=502", 1], ["?code=503&ra=1", 1], ["?code=429&ra=1", 0], ["?code=404", 0], ["?code=500", 0]])
    for (const method of ["GET", "POST"])
      for (const input of ["string", "Request"])
        add("outOfScope", { url: `/out/{T}/echo${q}`, input, method, body: bodyFor(method), phase });
  for (const input of ["string", "Request"]) add("outOfScope", { url: "/out/{T}/reset", input, method: "POST", body: JSON_BODY });
  add("outOfScope", { url: "{O2}/out/{T}/echo", input: "string", mode: "no-cors" });
  add("outOfScope", { url: "/out/{T}/echo", input: "string", signal: { kind: "pre" } });

  // Resets.
  for (const method of ["GET", "HEAD", "POST", "PUT", "DELETE"])
    for (const input of ["string", "Request"]) add("resets", { url: "/in/{T}/reset", input, method, body: bodyFor(method) });
  add("resets", { url: "{O2}/in/{T}/reset", input: "string" });
  add("resets", { url: "{O2}/in/{T}/reset", input: "string", mode: "no-cors" });

  // Bad inputs.
  const bad = [
    "headerNewline",
    "headerNumber",
    "headerNonLatin1",
    "headerBadName",
    "headerThrowingToString",
    "inputThrowingToString",
    "methodBad",
    "methodForbidden",
    "methodThrowingToString",
    "getWithBody",
    "headWithBody",
    "streamWithoutDuplex",
    "modeNavigate",
    "credentialsBogus",
    "priorityBogus",
    "signalNotASignal",
    "windowNotNull",
    "initNumber",
    "referrerBad",
    "usedRequest",
  ];
  for (const b of bad) add("bad", { url: "/in/{T}/echo", input: "string", bad: b });
  add("bad", { url: "/in/{T}/echo", input: "string", bad: "initInherited", method: "POST" }); // (method: for mayCarryKey)
  add("bad", { url: "/in/{T}/echo", input: "string", bad: "initGetters", method: "PUT" });
  for (const b of ["headerNewline", "headerNumber", "headerThrowingToString"])
    add("bad", { url: "/out/{T}/echo", input: "string", bad: b });
  for (const url of ["http://[::1", "ftp://127.0.0.1/x", "about:blank", "http://user:pass@127.0.0.1/in/x", "data:text/plain,hi", ""])
    add("bad", { url, input: "string" });

  return cases;
}

/** Whether the module may add an Idempotency-Key to this case's requests (an in-scope mutation). */
export function mayCarryKey(c) {
  const method = (c.method ?? "GET").toUpperCase();
  return MUTATIONS.has(method) && /^(\{O2\})?\/in\//.test(c.url);
}
