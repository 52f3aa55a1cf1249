// Comparing a native run with a module run, and printing what differs.
//
// The one difference allowed by design: an in-scope POST/PUT/PATCH/DELETE
// may carry an Idempotency-Key the caller did not set (a quoted UUID), and so
// may name it in a CORS preflight (which may then be one the native request
// did not need). A 429 with a Retry-After of 10 s or less may be sent once
// more, identically (the documented retry).

import { mayCarryKey } from "./cases.mjs";
import { neutral } from "./server.mjs";

const KEY_VALUE = /^"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$/;
// Error messages are compared too, but only noted: engines word them differently.
const CLIENT_FIELDS = ["threw", "isPromise", "outcome", "errName", "isReason", "status", "statusText", "type", "redirected", "url", "headers", "body"];

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** What a caller observed, with the run token made neutral. */
function client(o) {
  if (!o) return o;
  const out = { ...o };
  if (out.url !== undefined) out.url = neutral(out.url);
  if (out.headers) out.headers = out.headers.map(([k, v]) => [k, neutral(v)]);
  if (out.errMessage !== undefined) out.errMessage = neutral(out.errMessage);
  if (out.body?.error) out.body = { error: { errName: out.body.error.errName, isReason: out.body.error.isReason } };
  return out;
}

/**
 * Where native rejected an abort with a plain AbortError (WebKit does) and the
 * module with the signal's reason (what the standard and the other engines
 * give), the module is right: its error is compared as if it were native's.
 */
function reasonOverAbortError(a, b, notes, prefix) {
  const fix = (x, y, where) => {
    if (x && y && x.isReason === false && x.errName === "AbortError" && y.isReason === true) {
      notes.push(`${prefix}${where}the signal's reason where native gave an AbortError`);
      y.errName = x.errName;
      y.isReason = false;
    }
  };
  fix(a, b, "");
  if (a?.body?.error && b?.body?.error) fix(a.body.error, b.body.error, "body: ");
}

/** The differing client-visible fields, in the order a reader cares about. */
export function clientDiffs(n, m, prefix = "", notes = []) {
  const a = client(n);
  const b = client(m);
  reasonOverAbortError(a, b, notes, prefix);
  const diffs = [];
  if (a?.errMessage !== b?.errMessage) notes.push(`${prefix}error message: native ${short(a?.errMessage)} | module ${short(b?.errMessage)}`);
  const bodyMessage = (o) => o?.body?.error?.errMessage;
  if (bodyMessage(n) !== bodyMessage(m)) notes.push(`${prefix}body error message: native ${short(bodyMessage(n))} | module ${short(bodyMessage(m))}`);
  for (const f of CLIENT_FIELDS) {
    if (same(a?.[f], b?.[f])) continue;
    if (f === "headers" && a.headers && b.headers) {
      const first = firstPairDiff(a.headers, b.headers);
      diffs.push({ field: `${prefix}headers[${first.name}]`, native: first.native, module: first.module });
    } else diffs.push({ field: prefix + f, native: a?.[f], module: b?.[f] });
  }
  return diffs;
}

function firstPairDiff(a, b) {
  const names = [...new Set([...a, ...b].map(([k]) => k))].sort();
  for (const name of names) {
    const x = a.filter(([k]) => k === name).map(([, v]) => v);
    const y = b.filter(([k]) => k === name).map(([, v]) => v);
    if (!same(x, y)) return { name, native: x.length ? x.join(" | ") : "(absent)", module: y.length ? y.join(" | ") : "(absent)" };
  }
  return { name: "?", native: a, module: b };
}

const isPreflight = (r) => r.method === "OPTIONS" && r.headers.some(([k]) => k === "access-control-request-method");

/**
 * The module's records with the allowed Idempotency-Key differences taken
 * out, given the native records; notes say what was allowed.
 */
function allowKey(c, native, mod, notes) {
  if (!mayCarryKey(c)) return mod;
  const out = [];
  let j = 0;
  for (const r of mod) {
    const twin = native[j];
    let headers = r.headers;
    const key = headers.find(([k]) => k === "idempotency-key");
    const callerKey = twin?.headers.some(([k]) => k === "idempotency-key");
    if (key && !callerKey) {
      if (!KEY_VALUE.test(key[1])) notes.push(`malformed Idempotency-Key ${key[1]}`);
      headers = headers.filter(([k]) => k !== "idempotency-key");
      notes.push("Idempotency-Key added");
    }
    if (isPreflight(r)) {
      headers = headers
        .map(([k, v]) => {
          if (k !== "access-control-request-headers") return [k, v];
          const names = v.split(",").filter((n) => n.trim() !== "idempotency-key");
          return names.length ? [k, names.join(",")] : null;
        })
        .filter(Boolean);
      const asked = headers.some(([k]) => k === "access-control-request-headers");
      if (!asked && !(twin && isPreflight(twin))) {
        notes.push("a preflight for the Idempotency-Key alone");
        continue;
      }
    }
    out.push({ ...r, headers });
    j++;
  }
  return out;
}

const record = (r) => ({ origin: r.origin, method: r.method, url: r.url, headers: r.headers, bodyLen: r.bodyLen, body: r.body, ended: r.ended });

/** The differences between what the server received from each run. */
export function serverDiffs(c, nativeRecords, moduleRecords, notes = []) {
  const native = nativeRecords.map(record);
  let mod = allowKey(c, native, moduleRecords.map(record), notes);
  if (c.retry429 && mod.length === native.length + 1 && native.length && same(mod.at(-1), native.at(-1))) {
    mod = mod.slice(0, -1);
    notes.push("429 retried once");
  }
  if (c.racy && native.length !== mod.length && Math.min(native.length, mod.length) === 0) {
    notes.push("abort raced the send");
    return [];
  }
  if (native.length !== mod.length) {
    return [{ field: "server.count", native: native.length, module: mod.length, detail: { native: native.map(brief), module: mod.map(brief) } }];
  }
  const diffs = [];
  native.forEach((a, i) => {
    const b = mod[i];
    for (const f of ["origin", "method", "url", "headers", "bodyLen", "body", "ended"]) {
      if (same(a[f], b[f])) continue;
      if (f === "headers") {
        const first = firstPairDiff(a.headers, b.headers);
        diffs.push({ field: `server[${i}].headers[${first.name}]`, native: first.native, module: first.module });
      } else diffs.push({ field: `server[${i}].${f}`, native: a[f], module: b[f] });
    }
  });
  return diffs;
}

const brief = (r) => `${r.method} ${r.origin} ${short(r.url)} (${r.ended})`;

/**
 * The trip statuses may arm the circuit when the final URL is in scope (the
 * trip rule also wants no success within its window, and the matrix runs
 * successes beside them); nothing else ever arms it.
 */
export function expectedCircuit(n, inScope) {
  if (!n || n.outcome !== "resolve" || n.type === "opaque" || n.type === "opaqueredirect") return null;
  return [502, 503, 504].includes(n.status) && inScope(n.url) ? n.status : null;
}

/** Everything that differs for one matrix case (client, server, circuit). */
export function caseDiffs(c, run, records, inScope) {
  const notes = [];
  const diffs = clientDiffs(run.n, run.m, "", notes);
  diffs.push(...serverDiffs(c, records.n, records.m, notes));
  const want = expectedCircuit(run.n, inScope);
  if (run.m.circuit !== want && !(want !== null && run.m.circuit === null)) diffs.push({ field: "circuit after the call", native: want ?? "closed", module: run.m.circuit ?? "closed" });
  // A case that has the engine collect garbage before its abort tests nothing when no collection was seen.
  if (c.signal?.gc && !(run.n.gc && run.m.gc)) diffs.push({ field: "garbage collected before the abort", native: run.n.gc ?? "not started", module: run.m.gc ?? "not started" });
  notes.push(...[["native", run.n], ["module", run.m]].flatMap(([side, o]) => timeline(side, o)));
  return { diffs, notes };
}

/**
 * When a side's abort fired and what it did: an abort that fired before the
 * body was read whole did not reach the download (not a late timer).
 */
function timeline(side, o) {
  const at = o?.marks;
  if (at?.abort === undefined) return [];
  const steps = ["headers", "abort", "body", "end"].filter((k) => at[k] !== undefined).map((k) => `${k} ${at[k]} ms`);
  const lost = o.body?.len !== undefined && at.body !== undefined && at.abort < at.body;
  return [`${side}: ${steps.join(", ")}${lost ? ": the abort did not stop the download" : ""}`];
}

function short(v, max = 140) {
  const s = typeof v === "string" ? v : JSON.stringify(v);
  if (s === undefined) return "undefined";
  return s.length > max ? `${s.slice(0, max)}…(${s.length} chars)` : s;
}

/** A case's inputs, compactly: long strings shortened. */
export function describeCase(c) {
  const { id, group, phase, ...rest } = c;
  const parts = Object.entries(rest)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${short(v, 100)}`);
  return `${id} ${parts.join(" ")}`;
}

/** The printed report of a failing case: its inputs, the first differing field, the others, and what was noted of the run. */
export function formatFailure(label, diffs, notes = []) {
  const [first, ...others] = diffs;
  const lines = [`✗ ${label}`, `    first difference: ${first.field}: native ${short(first.native)} | module ${short(first.module)}`];
  if (first.detail) lines.push(`      native requests: ${first.detail.native.join("; ") || "none"}`, `      module requests: ${first.detail.module.join("; ") || "none"}`);
  if (others.length) lines.push(`    also: ${others.map((d) => `${d.field} (native ${short(d.native, 60)} | module ${short(d.module, 60)})`).join("; ")}`);
  for (const n of new Set(notes)) lines.push(`    noted: ${n}`);
  return lines.join("\n");
}
