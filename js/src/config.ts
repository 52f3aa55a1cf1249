// data-* attributes → options. Go owns the configuration
// (internal/guard.ParseAttributes): it gets the attributes raw, applies the
// defaults, validates, warns about each bad value and says which options are
// in force. Until the wasm runs, the stand-in and the gate need a few of them
// at once: they read them by the table Go publishes (policy.gen.ts: each
// setting's default, its kind's range or words, the setting that caps it),
// checked by the same vectors (internal/guard/testdata/attribute_vectors.json),
// and stay silent about bad values: Go names them. What only JS can do is
// JS's: resolving data-scope and data-wasm against the page (the URL
// parser), and warning about those.

import { type Option, readOptionsFrame, wholeNumber, writeAttributesFrame } from "./abi.gen.js";
import {
  ALIASES,
  HALF_OPEN_MS,
  MAX_TTL_MS,
  type Options,
  SETTINGS,
  type Setting,
  type SettingName,
  TRIP_STATUSES,
  TTL_MS,
} from "./policy.gen.js";
import { scopePrefixes } from "./scope.js";

function statusList(v: string): number[] {
  return v === "" ? [] : v.split(",").map(Number);
}

// Pure calls (droppable where unused, as in the tag's file).
export const DEFAULT_MAX_TTL_MS = /* @__PURE__ */ (() => Number(MAX_TTL_MS.def))();
export const DEFAULT_TRIP_STATUSES: readonly number[] = /* @__PURE__ */ (() => statusList(TRIP_STATUSES.def))();

/** `v` as a whole number in the kind's range, or null. */
const inRange = (k: Setting["kind"], v: string) => {
  const n = wholeNumber(v);
  return n !== null && n >= BigInt(k.min) && n <= BigInt(k.max) ? n : null;
};

/** checked() for a number setting (neither words nor a list): the tag's file reads only those, and carries only this. */
const checkedNumber = (s: Setting, raw: string | undefined) => String(inRange(s.kind, raw?.trim() ?? "") ?? s.def);

/** The value Go puts in force for `raw` (before caps): its normal form, or the default when absent, blank or refused. */
const checked: typeof checkedNumber = (s, raw) => {
  const v = raw?.trim() ?? "";
  const k = s.kind;
  if (v === "" || !(k.words.length || k.list)) return checkedNumber(s, v);
  if (k.words.length) {
    const w = v.toLowerCase();
    const word = Object.prototype.hasOwnProperty.call(ALIASES, w) ? ALIASES[w]! : w;
    return k.words.includes(word) ? word : s.def;
  }
  const nums = v.split(",").map((p) => p.trim()).filter((p) => p !== "").map((p) => inRange(k, p));
  return nums.every((n) => n !== null) ? nums.join(",") : s.def;
};

/** The settings Go puts in force (ParseAttributes), as text by name, each read by `check`. A setting's cap (capBy) must be among `only`. */
function readSettings(data: DataAttributes, only: readonly Setting[], check: typeof checked): Record<string, string> {
  const given = data as Record<string, string | undefined>;
  const values: Record<string, string> = {};
  for (const s of only) values[s.name] = check(s, given[s.name]);
  for (const s of only) {
    const cap = values[s.capBy];
    if (cap !== undefined && (values[s.name] === "" || Number(values[s.name]) > Number(cap))) values[s.name] = cap;
  }
  return values;
}

/** How long a circuit is armed (Go's Arm): the TTL, its cap, and the half-open time after it. */
export type CircuitTimes = Pick<Options, "ttlMs" | "maxTtlMs" | "halfOpenMs">;

/**
 * The smallest part of Go's trip rule, for the answers before the wasm runs: with tripMinFailures 1, an in-scope
 * trip status arms the stored circuit at once, for the TTL (capped). Go judges those answers again when it runs.
 */
export type EarlyRule = CircuitTimes & Pick<Options, "tripStatuses" | "tripMinFailures">;

export function readCircuitTimes(data: DataAttributes): CircuitTimes {
  const v = readSettings(data, [TTL_MS, MAX_TTL_MS, HALF_OPEN_MS], checkedNumber);
  return { ttlMs: Number(v.ttlMs), maxTtlMs: Number(v.maxTtlMs), halfOpenMs: Number(v.halfOpenMs) };
}

/** The options in force (Go's, once it runs), with what only JS resolves: the scope and the wasm's URL. */
export interface ResolvedOptions extends Options {
  /** Where the wasm is, or null to run the JS gate only. */
  wasmUrl: string | null;
  /** Absolute URL prefixes the circuit guards. */
  scope: string[];
}

/** The data-* attributes of the script tag (a DOMStringMap). */
export type DataAttributes = Partial<Record<SettingName | "wasm" | "scope" | "load", string>>;

/** Settings' values, as text by name, as options (a switch is on unless "off"). */
function typed(values: Readonly<Record<string, string>>): Partial<Options> {
  const options: Record<string, unknown> = {};
  for (const s of SETTINGS) {
    const v = values[s.name];
    if (v === undefined || v === "") continue;
    const k = s.kind;
    options[s.name] = k.words.length ? v !== "off" : k.list ? statusList(v) : Number(v);
  }
  return options;
}

/** The options of a module that guards nothing (the pass-through): every default, every switch off. */
export function inertOptions(): ResolvedOptions {
  const off: Record<string, string> = {};
  for (const s of SETTINGS) if (s.kind.words.length) off[s.name] = "off";
  return { wasmUrl: null, scope: [], ...(typed(readSettings(off, SETTINGS, checked)) as Options) };
}

export function readOptions(data: DataAttributes, base: string, scriptSrc?: string): { options: ResolvedOptions; problems: string[] } {
  const problems: string[] = [];
  const scope = scopePrefixes(data.scope, base, (entry, u) => {
    problems.push(`data-scope: ${JSON.stringify(entry)} is not ${u ? "http(s)" : "a URL or path"}; ignored`);
  });
  let wasmUrl: string | null = null;
  const wasm = data.wasm ?? scriptSrc?.replace(/\.js(?=$|[?#])/, ".wasm");
  if (wasm) {
    try {
      wasmUrl = new URL(wasm, base).href;
    } catch {
      problems.push(`data-wasm: ${JSON.stringify(wasm)} is not a URL; running without the wasm`);
    }
  } else {
    problems.push("data-wasm is missing; running without the wasm");
  }
  return { options: { wasmUrl, scope, ...(typed(readSettings(data, SETTINGS, checked)) as Options) }, problems };
}

/** The Attributes frame for Go: the attributes as given, data-scope as its resolved prefixes, the page's origin, a reload. */
export function attributesText(data: DataAttributes, o: ResolvedOptions, pageOrigin = "", reload = false): string {
  const lines: Option[] = [];
  for (const [name, value] of Object.entries(data)) {
    if (name !== "scope" && name !== "wasm" && typeof value === "string") lines.push({ name, value });
  }
  for (const value of o.scope) lines.push({ name: "scope", value });
  if (pageOrigin) lines.push({ name: "pageOrigin", value: pageOrigin });
  if (reload) lines.push({ name: "navigation", value: "reload" });
  return writeAttributesFrame(lines);
}

/**
 * Go's Options frame over the JS view: each option Go names replaces the one of the same name, read by its
 * setting's kind (typed: a switch's "always" and "cross-origin" are on); the scope and the wasm's URL stay JS's.
 */
export function readGoOptions(frame: string, o: ResolvedOptions): { options: ResolvedOptions; warnings: string[] } {
  const warnings: string[] = [];
  const values: Record<string, string> = {};
  for (const l of readOptionsFrame(frame)) {
    if ("warning" in l) warnings.push(l.warning.text);
    else values[l.option.name] = l.option.value;
  }
  return { options: { ...o, ...typed(values) }, warnings };
}
