// What the glue needs to know about a fetch call (Described), read without
// changing it. Go decides what makes two requests the same
// (internal/coalesce); this file only writes down every property that can
// change the answer, in the Request frame (abi.gen.ts).

/** fetch's defaults for the options that can change the answer. */
const OPTION_DEFAULTS = {
  mode: "cors",
  credentials: "same-origin",
  cache: "default",
  redirect: "follow",
  referrer: "about:client",
  referrerPolicy: "",
  integrity: "",
  priority: "auto",
  keepalive: "false",
} as const;

const OPTIONS = /* @__PURE__ */ Object.keys(OPTION_DEFAULTS) as (keyof typeof OPTION_DEFAULTS)[];

export interface Described {
  /** The absolute URL fetch will request. */
  url: string;
  /** Upper-cased, for decisions only (what is sent is the caller's). */
  method: string;
  /** "name: value\n" per header, then ":option: value\n" per non-default option. */
  headers: string;
  signal: AbortSignal | undefined;
  /** A GET with no headers, no options and no Request object: the quiet path may take it. */
  plain: boolean;
  /** The body is a stream given in init: it can be sent once only. */
  oneShotBody: boolean;
  /** The input is a Request with a body: every send needs its own clone. */
  requestBody: boolean;
}

export const isRequest = (x: unknown): x is Request => typeof Request !== "undefined" && x instanceof Request;

/** The method fetch will use, as it writes it (upper case). */
export const methodOf = (init: RequestInit | undefined, req: Request | null): string => String(init?.method ?? req?.method ?? "GET").toUpperCase();

/** The absolute URL fetch would use for `input`. Throws when fetch would reject it. */
export function requestUrl(input: RequestInfo | URL, base: string): string {
  if (typeof input === "string") return plainPathUrl(input, base) ?? new URL(input, base).href;
  if (input instanceof URL) return input.href;
  if (isRequest(input)) return input.url;
  return new URL(String(input), base).href;
}

// An absolute path made only of characters the URL parser leaves as they
// are (not "'", which it percent-encodes in an http(s) query), with no dot
// segment: the URL is the base's origin + the path, exactly as new URL()
// would say, without its cost (~15 µs per request, cold).
const PLAIN_PATH = /^\/[A-Za-z0-9\-_~!$&()*+,;=:@/?#]*$/;
const DOT_SEGMENT = /\/\.|^\/\//;
let lastBase = "";
let lastOrigin = "";

function plainPathUrl(path: string, base: string): string | null {
  if (!PLAIN_PATH.test(path) || DOT_SEGMENT.test(path)) return null;
  if (base !== lastBase) {
    lastOrigin = new URL(base).origin;
    lastBase = base;
  }
  return lastOrigin + path;
}

/**
 * Reads a fetch call (describe); null when fetch must take the call as it is: fetch rejects it with its own error
 * (a bad header, a URL that does not parse, a throwing toString), or its signal is already aborted (nothing may go
 * out for it, and nothing is decided).
 */
export function readCall(input: RequestInfo | URL, init: RequestInit | undefined, base: string): Described | null {
  try {
    const req = describe(input, init, base);
    return req.signal?.aborted ? null : req;
  } catch {
    return null;
  }
}

/** Reads a fetch call. Throws where fetch would reject (see readCall). */
export function describe(input: RequestInfo | URL, init: RequestInit | undefined, base: string): Described {
  const url = requestUrl(input, base);
  const req = isRequest(input) ? input : null;
  // The common calls, fetch(url) and TanStack's fetch(url, {signal}): nothing else to read.
  if (req === null && (init === undefined || onlySignal(init))) {
    return { url, method: "GET", headers: "", signal: signalOf(init), plain: true, oneShotBody: false, requestBody: false };
  }
  const method = methodOf(init, req);
  let headers = "";
  for (const [k, v] of new Headers(init?.headers ?? req?.headers)) headers += `${k}: ${v}\n`;
  for (const name of OPTIONS) {
    const given = init !== undefined && name in init ? (init as Record<string, unknown>)[name] : undefined;
    const v = given !== undefined ? given : req ? (req as unknown as Record<string, unknown>)[name] : undefined;
    if (v === undefined || v === null) continue;
    const s = String(v);
    if (s !== OPTION_DEFAULTS[name]) headers += `:${name}: ${s}\n`;
  }
  // A call's own deadline: calls whose deadlines differ are not merged (each caller keeps its own).
  const timeout = (init as { timeout?: unknown } | undefined)?.timeout;
  if (timeout !== undefined) headers += `:timeout: ${String(timeout)}\n`;
  const signal = init && "signal" in init ? signalOf(init) : (req?.signal ?? undefined);
  const body = init?.body;
  const oneShotBody = typeof ReadableStream !== "undefined" && body instanceof ReadableStream;
  const requestBody = req !== null && (body === undefined || body === null) && req.body !== null;
  return { url, method, headers, signal, plain: false, oneShotBody, requestBody };
}

/** init has no member but (maybe) a signal: what fetch reads, inherited members included. */
function onlySignal(init: RequestInit): boolean {
  for (const k in init) if (k !== "signal" && (init as Record<string, unknown>)[k] !== undefined) return false;
  return true;
}

/** RequestInit's members (and the module's `timeout`), which fetch reads from an init however it holds them. */
const INIT_MEMBERS: string[] = /* @__PURE__ */ (OPTIONS as string[]).concat(["body", "duplex", "headers", "method", "signal", "window", "timeout"]);

/** `init` as an object literal, read where the call enters: fetch reads members a prototype holds (Object.create, getters); a spread, as each copy here is, does not. */
export function ownInit<T>(init: T): T {
  const p: unknown = typeof init === "object" && init !== null ? Object.getPrototypeOf(init) : null;
  if (p === Object.prototype || p === null) return init;
  const out: Record<string, unknown> = { ...(init as object) };
  for (const k of INIT_MEMBERS) if ((init as Record<string, unknown>)[k] !== undefined) out[k] = (init as Record<string, unknown>)[k];
  return out as T;
}

/** init's signal; throws, as fetch rejects, for one that is not an AbortSignal. */
function signalOf(init: RequestInit | undefined): AbortSignal | undefined {
  const signal = init?.signal ?? undefined;
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new TypeError("signal is not an AbortSignal");
  return signal;
}

/**
 * The init to send `input` with when the glue adds to it (its own signal, an Idempotency-Key). A Request given with
 * any init loses its referrer and referrer policy (the Fetch standard resets them): they are carried over.
 */
export function initFor(input: RequestInfo | URL, init: RequestInit | undefined, extra: RequestInit): RequestInit {
  const out: RequestInit = { ...init, ...extra }; // (init is an object literal: ownInit)
  if (isRequest(input)) {
    if (out.referrer === undefined) out.referrer = input.referrer;
    if (out.referrerPolicy === undefined) out.referrerPolicy = input.referrerPolicy;
  }
  return out;
}

/** The rejection fetch gives for an aborted signal (Chromium and Firefox: the reason). */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}
