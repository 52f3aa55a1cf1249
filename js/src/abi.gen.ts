// Code generated from internal/abi (go generate ./internal/abi). DO NOT EDIT.
// The whole Go↔JS interface of the wasm: see internal/abi for what each name means.

/** The wasm's exports (wasm/main.go). */
export interface Exports {
  mem: WebAssembly.Memory;
  /** Address of the string buffer (valid until gc_reserve). */
  gc_buf(): number;
  /** Grows the string buffer to at least n bytes (≤ MaxFrame) and returns its new address; 0 when n is too large. */
  gc_reserve(n: number): number;
  /** Address of out: OutLen float64 slots. */
  gc_out(): number;
  /** Address of an int32 holding the Quiet bits. */
  gc_quiet(): number;
  /** Address of the quiet-status table: QuietStatusLen bytes, index status - StatusOpaque; 1 when that answer to a plain GET on the quiet path changes nothing (set by gc_configure). */
  gc_quiet_statuses(): number;
  /** Reads the Attributes frame, applies defaults, restores the stored state; writes the Options frame into the buffer and returns its length, or CodeNotStarted with the message. */
  gc_configure(now: number, len: number): number;
  /** Decides for the Request frame: a Kind in the low byte, FlagChanged, FlagKeyed; out holds BeginOut. */
  gc_begin(now: number, len: number): number;
  /** A ticket for a plain GET sent at sent on the quiet path whose answer matters (Request frame); 0: out of scope. */
  gc_adopt(sent: number, len: number): number;
  /** The answer to ticket (Answer frame): flags; out holds FinishOut. */
  gc_finish(now: number, ticket: number, status: number, len: number): number;
  /** The answer (at answered) to a request sent (at sent) before the wasm ran (Observe frame); flags. */
  gc_observe(now: number, sent: number, answered: number, status: number, len: number): number;
  /** Every caller of ticket left: 1 = abort the network request. */
  gc_abort(ticket: number): number;
  /** Address where JS writes a body of n bytes (valid until the next call). */
  gc_body(n: number): number;
  /** Keeps a body of that size as the ticket's copy (bytes -1: no copy was taken; the ticket ends); small ≥ 0: the whole body, at most ShortBody bytes, is in gc_body. Returns the copy id (0: not kept). */
  gc_store(now: number, ticket: number, bytes: number, small: number): number;
  /** The next stale copy whose body JS must release, or 0. */
  gc_dropped(): number;
  /** Registers a mutation gc_begin said is keyed (Mutation frame, the caller's own Idempotency-Key read from its headers; body in gc_body; r0..r3 random): an idempotency.Decision, the Key frame in the buffer (its length in IdemBeginOut); or a Code. */
  gc_idem_begin(now: number, len: number, r0: number, r1: number, r2: number, r3: number): number;
  /** Records a mutation's answer (Action frame: the Key frame without its header). */
  gc_idem_finish(now: number, len: number, status: number): number;
  /** Arms the circuit (ttlMs 0: the policy's TTL); flags, or CodeBadArm with the message in the buffer. */
  gc_arm(now: number, status: number, ttlMs: number): number;
  /** The user's retry: flags. */
  gc_clear(): number;
  /** Expires the circuit if its time is up: flags. */
  gc_read(now: number): number;
  /** The latest unreported in-scope success (a quiet-path answer), with when it was sent and answered; reported before a failure, for the trip rule. */
  gc_succeeded(sent: number, answered: number): void;
  /** The logout: drops copies, pending keys and in-flight sharing (then read gc_dropped). */
  gc_forget(now: number): void;
  /** Reads the circuit and the pauses from storage again (a page restored from the back/forward cache): flags. */
  gc_reload(now: number): number;
  /** Writes the Pauses frame into the buffer and returns its length. */
  gc_pauses(): number;
  /** The circuit's deadline (0: closed). */
  gc_until(): number;
  /** The status that armed the circuit (0: closed). */
  gc_status(): number;
  /** Go's counter i (metrics.Counter; GO_COUNTED in metrics.gen.ts names each). */
  gc_metric(i: number): number;
  /** Length in the buffer of the message of the last refusal. */
  gc_message_len(): number;
}

/** The import module the glue gives the wasm (internal/jsbridge). */
export const IMPORT_MODULE = "gatewaycircuit";

/** The functions of IMPORT_MODULE; addresses are in Go's memory. */
export interface Imports {
  /** sessionStorage.getItem(key), written as UTF-8 at dst when it fits in dstCap bytes; returns its length in bytes (more than dstCap: what is at dst is partial; call again with room), or a Storage code. */
  storage_get(key: number, keyLen: number, dst: number, dstCap: number): number;
  /** sessionStorage.setItem(key, value): 0, or a Storage code. */
  storage_set(key: number, keyLen: number, value: number, valueLen: number): number;
  /** sessionStorage.removeItem(key): 0, or a Storage code. */
  storage_remove(key: number, keyLen: number): number;
}

/** What to do with a request (guard.Kind), in the low byte of gc_begin's result. */
export const enum Kind {
  Pass = 0, // out of scope: native fetch, nothing to report
  Send = 1, // to the network, then gc_finish(ticket) or gc_abort
  Join = 2, // coalesced: share the answer of flight
  Wait = 3, // half-open: wait for probe to end, then begin again
  Open = 4, // the circuit is armed: synthetic 503
  Cooling = 5, // the service asked for a pause (429): synthetic 503
  Negative = 6, // the same GET failed moments ago: synthetic 503
  Stale = 7, // answer with the stale copy
  Cached = 8, // the key keeps answering empty: answer with its copy
}

/** Bits or-ed into results. */
export const enum Flag {
  Retry = 256, // gc_finish: send again after FinishOut.WaitMs
  WantBody = 512, // gc_finish: keep a copy of the body (gc_store)
  Serve = 1024, // gc_finish: answer with the stale copy in out
  Changed = 2048, // what blocks requests changed (the circuit or a pause): read it and notify
  Keyed = 4096, // gc_begin, Send: a mutation that carries an Idempotency-Key: gc_idem_begin before it is sent
  KindMask = 255, // gc_begin: the Kind
}

/** Negative results. */
export const enum Code {
  NotStarted = -1,
  BadArm = -2,
  KeyReused = -3, // IDEMPOTENCY_KEY_REUSED: answered locally with a 422
  LedgerFull = -4, // IDEMPOTENCY_LEDGER_FULL
  BodyTooBig = -5, // IDEMPOTENCY_BODY_TOO_LARGE
  BodyDeep = -6, // IDEMPOTENCY_BODY_TOO_DEEP
  BadKey = -7, // IDEMPOTENCY_BAD_KEY
  IdemOff = -8, // sent without a key
}

/** gc_idem_begin's positive results (idempotency.Decision). */
export const enum Idem {
  Start = 1, // a new action: send with the key
  Retry = 2, // a retry of an action without a definitive answer: same key
  Join = 3, // the same action is in flight: share its answer
}

/** The storage imports' negative results. */
export const enum StorageResult {
  Missing = -1, // storage_get: no such key
  Unavailable = -2, // no sessionStorage, or it threw (sandboxed frame, storage disabled)
  Quota = -3, // storage_set: the value does not fit
}

/** Bits at gc_quiet. */
export const enum Quiet {
  Idle = 1, // no policy has anything to say about a plain GET
  Coalesce = 2, // identical plain GETs share one request
}

/** Statuses that are not HTTP statuses. */
export const enum Status {
  NoAnswer = 0, // fetch rejected
  Opaque = -1, // an opaque or opaqueredirect response
}

/** Sizes. */
export const enum Limit {
  OutLen = 9, // float64 slots in out
  MaxFrame = 16777216, // longest frame, in bytes
  MaxCopy = 5242880, // largest body kept as a copy, in bytes
  QuietStatusLen = 601, // bytes in the quiet-status table (gc_quiet_statuses)
  ShortBody = 64, // longest body gc_store is given whole (in gc_body): Go decides whether it is empty
}

/** Splits s at its first newline (the rest is empty when there is none). */
function cut(s: string): [string, string] {
  const i = s.indexOf("\n");
  return i < 0 ? [s, ""] : [s.slice(0, i), s.slice(i + 1)];
}

/** BeginOut is out after gc_begin; which slots mean something depends on the Kind in gc_begin's result. */
export interface BeginOut {
  /** Send: names the request in gc_finish and gc_abort */
  ticket: number;
  /** Send, Join: the coalesced flight (0 = none) */
  flight: number;
  /** Send: this request is the half-open probe with this id (0 = not a probe); Wait: the probe to wait for */
  probe: number;
  /** Wait: how long to wait for the probe at most */
  probeTimeoutMs: number;
  /** Open, Cooling, Negative, Stale: when the blocking state ends */
  untilMs: number;
  /** Open, Negative, Stale: the status that armed the circuit */
  status: number;
  /** Stale, Cached: the copy to answer with */
  copyId: number;
  /** Stale, Cached */
  copyAgeMs: number;
  /** Stale, Cached */
  copyStoredAtMs: number;
}

/** FinishOut is out after gc_finish. */
export interface FinishOut {
  /** FlagRetry: how long to wait before sending again */
  waitMs: number;
  /** FlagServe: the copy to answer with */
  copyId: number;
  /** FlagServe */
  copyAgeMs: number;
  /** FlagServe */
  copyStoredAtMs: number;
}

/** IdemBeginOut is out after a gc_idem_begin that did not refuse. */
export interface IdemBeginOut {
  /** length of the Key frame in the buffer */
  keyLen: number;
}

/** Request is the frame of gc_begin and gc_adopt. */
export interface Request {
  method: string;
  url: string;
  /** One "name: value\n" line per request header, then one ":option: value\n" line per request option that differs from fetch's default (mode, credentials, cache, redirect, referrer, referrerPolicy, integrity, priority, keepalive). */
  headers: string;
}

/** Joins a Request frame. */
export function writeRequest(v: Request): string {
  return `${v.method}\n${v.url}\n${v.headers}`;
}

/** Splits a Request frame. */
export function readRequest(s: string): Request {
  let method: string;
  [method, s] = cut(s);
  let url: string;
  [url, s] = cut(s);
  return { method, url, headers: s };
}

/** Answer is the frame of gc_finish: what the network answered. */
export interface Answer {
  retryAfter: string;
  cacheControl: string;
  /** the response's url when it was redirected, else empty */
  finalUrl: string;
}

/** Joins a Answer frame. */
export function writeAnswer(v: Answer): string {
  return `${v.retryAfter}\n${v.cacheControl}\n${v.finalUrl}`;
}

/** Splits a Answer frame. */
export function readAnswer(s: string): Answer {
  let retryAfter: string;
  [retryAfter, s] = cut(s);
  let cacheControl: string;
  [cacheControl, s] = cut(s);
  return { retryAfter, cacheControl, finalUrl: s };
}

/** Observe is the frame of gc_observe: the answer to a request sent before the wasm ran. */
export interface Observe {
  method: string;
  url: string;
  retryAfter: string;
  finalUrl: string;
}

/** Joins a Observe frame. */
export function writeObserve(v: Observe): string {
  return `${v.method}\n${v.url}\n${v.retryAfter}\n${v.finalUrl}`;
}

/** Splits a Observe frame. */
export function readObserve(s: string): Observe {
  let method: string;
  [method, s] = cut(s);
  let url: string;
  [url, s] = cut(s);
  let retryAfter: string;
  [retryAfter, s] = cut(s);
  return { method, url, retryAfter, finalUrl: s };
}

/** Mutation is the frame of gc_idem_begin. */
export interface Mutation {
  method: string;
  url: string;
  /** As in Request; Go reads the caller's own Idempotency-Key there (guard.GivenKey). */
  headers: string;
}

/** Joins a Mutation frame. */
export function writeMutation(v: Mutation): string {
  return `${v.method}\n${v.url}\n${v.headers}`;
}

/** Splits a Mutation frame. */
export function readMutation(s: string): Mutation {
  let method: string;
  [method, s] = cut(s);
  let url: string;
  [url, s] = cut(s);
  return { method, url, headers: s };
}

/** Key is the frame gc_idem_begin writes into the buffer (its length in IdemBeginOut.KeyLen). */
export interface Key {
  /** the action's operation (idempotency.Operation) */
  operation: string;
  /** the key, as the ledger knows it */
  key: string;
  /** the Idempotency-Key header to set; empty when the caller's own is sent as it is */
  header: string;
}

/** Joins a Key frame. */
export function writeKey(v: Key): string {
  return `${v.operation}\n${v.key}\n${v.header}`;
}

/** Splits a Key frame. */
export function readKey(s: string): Key {
  let operation: string;
  [operation, s] = cut(s);
  let key: string;
  [key, s] = cut(s);
  return { operation, key, header: s };
}

/** Action is the frame of gc_idem_finish: a Key without its header. */
export interface Action {
  operation: string;
  key: string;
}

/** Joins a Action frame. */
export function writeAction(v: Action): string {
  return `${v.operation}\n${v.key}`;
}

/** Splits a Action frame. */
export function readAction(s: string): Action {
  let operation: string;
  [operation, s] = cut(s);
  return { operation, key: s };
}

/** What the typed calls need of Go's memory (engine.ts gives it). */
export interface CallIO {
  /** Writes s as a frame into Go's buffer, whole; returns its length in bytes. Over MaxFrame it throws, or returns -1 when `refuse`. */
  put(s: string, refuse?: boolean): number;
  /** Writes b where gc_body says. */
  body(b: Uint8Array): void;
  /** out, viewed after the call that filled it (Go's memory may have grown). */
  out(): Float64Array;
  /** n bytes of the buffer as text, after the call that wrote them. */
  text(n: number): string;
}

/** The typed calls over the exports (internal/abi Calls): each frames its arguments and reads its result as declared there. */
export function bindCalls(ex: Exports, io: CallIO) {
  return {
    /** gc_configure: Reads the Attributes frame, applies defaults, restores the stored state; writes the Options frame into the buffer and returns its length, or CodeNotStarted with the message. */
    configure(now: number, attributes: string) {
      return ex.gc_configure(now, io.put(attributes));
    },
    /** gc_begin: Decides for the Request frame: a Kind in the low byte, FlagChanged, FlagKeyed; out holds BeginOut. Null: the frame is over MaxFrame. */
    begin(now: number, method: string, url: string, headers: string) {
      const len = io.put(writeRequest({ method, url, headers }), true);
      if (len < 0) return null;
      const r = ex.gc_begin(now, len);
      const out = io.out();
      return {
        kind: (r & Flag.KindMask) as Kind,
        changed: (r & Flag.Changed) !== 0,
        keyed: (r & Flag.Keyed) !== 0,
        ticket: out[0]!,
        flight: out[1]!,
        probe: out[2]!,
        probeTimeoutMs: out[3]!,
        untilMs: out[4]!,
        status: out[5]!,
        copyId: out[6]!,
        copyAgeMs: out[7]!,
        copyStoredAtMs: out[8]!,
      };
    },
    /** gc_adopt: A ticket for a plain GET sent at sent on the quiet path whose answer matters (Request frame); 0: out of scope. */
    adopt(sent: number, url: string) {
      return ex.gc_adopt(sent, io.put(writeRequest({ method: "GET", url, headers: "" })));
    },
    /** gc_finish: The answer to ticket (Answer frame): flags; out holds FinishOut. */
    finish(now: number, ticket: number, status: number, retryAfter: string, cacheControl: string, finalUrl: string) {
      const n = retryAfter || cacheControl || finalUrl ? io.put(writeAnswer({ retryAfter, cacheControl, finalUrl })) : 0;
      const r = ex.gc_finish(now, ticket, status, n);
      const out = io.out();
      return {
        changed: (r & Flag.Changed) !== 0,
        retry: (r & Flag.Retry) !== 0,
        wantBody: (r & Flag.WantBody) !== 0,
        serve: (r & Flag.Serve) !== 0,
        waitMs: out[0]!,
        copyId: out[1]!,
        copyAgeMs: out[2]!,
        copyStoredAtMs: out[3]!,
      };
    },
    /** gc_observe: The answer (at answered) to a request sent (at sent) before the wasm ran (Observe frame); flags. */
    observe(now: number, sent: number, answered: number, status: number, method: string, url: string, retryAfter: string, finalUrl: string) {
      return (ex.gc_observe(now, sent, answered, status, io.put(writeObserve({ method, url, retryAfter, finalUrl }))) & Flag.Changed) !== 0;
    },
    /** gc_abort: Every caller of ticket left: 1 = abort the network request. */
    abort(ticket: number) {
      return ex.gc_abort(ticket) === 1;
    },
    /** gc_dropped: The next stale copy whose body JS must release, or 0. */
    dropped() {
      const all: number[] = [];
      for (let v = ex.gc_dropped(); v !== 0; v = ex.gc_dropped()) all.push(v);
      return all;
    },
    /** gc_idem_begin: Registers a mutation gc_begin said is keyed (Mutation frame, the caller's own Idempotency-Key read from its headers; body in gc_body; r0..r3 random): an idempotency.Decision, the Key frame in the buffer (its length in IdemBeginOut); or a Code. */
    idemBegin(now: number, method: string, url: string, headers: string, body: Uint8Array) {
      io.body(body);
      const random = crypto.getRandomValues(new Int32Array(4));
      const r = ex.gc_idem_begin(now, io.put(writeMutation({ method, url, headers })), random[0]!, random[1]!, random[2]!, random[3]!);
      if (r < 0) return { code: r as Code | Idem, message: io.text(ex.gc_message_len()), operation: "", key: "", header: "" };
      const out = io.out();
      const keyFrame = readKey(io.text(out[0]!));
      return { code: r as Code | Idem, message: "", operation: keyFrame.operation, key: keyFrame.key, header: keyFrame.header };
    },
    /** gc_idem_finish: Records a mutation's answer (Action frame: the Key frame without its header). */
    idemFinish(now: number, operation: string, key: string, status: number) {
      return ex.gc_idem_finish(now, io.put(writeAction({ operation, key })), status);
    },
    /** gc_arm: Arms the circuit (ttlMs 0: the policy's TTL); flags, or CodeBadArm with the message in the buffer. */
    arm(now: number, status: number, ttlMs: number) {
      return ex.gc_arm(now, status, ttlMs);
    },
    /** gc_clear: The user's retry: flags. */
    clear() {
      return ex.gc_clear();
    },
    /** gc_read: Expires the circuit if its time is up: flags. */
    read(now: number) {
      return ex.gc_read(now);
    },
    /** gc_succeeded: The latest unreported in-scope success (a quiet-path answer), with when it was sent and answered; reported before a failure, for the trip rule. */
    succeeded(sent: number, answered: number) {
      return ex.gc_succeeded(sent, answered);
    },
    /** gc_forget: The logout: drops copies, pending keys and in-flight sharing (then read gc_dropped). */
    forget(now: number) {
      return ex.gc_forget(now);
    },
    /** gc_reload: Reads the circuit and the pauses from storage again (a page restored from the back/forward cache): flags. */
    reload(now: number) {
      return ex.gc_reload(now);
    },
    /** gc_pauses: Writes the Pauses frame into the buffer and returns its length. */
    pauses() {
      return io.text(ex.gc_pauses());
    },
    /** gc_until: The circuit's deadline (0: closed). */
    until() {
      return ex.gc_until();
    },
    /** gc_status: The status that armed the circuit (0: closed). */
    status() {
      return ex.gc_status();
    },
    /** gc_metric: Go's counter i (metrics.Counter; GO_COUNTED in metrics.gen.ts names each). */
    metric(i: number) {
      return ex.gc_metric(i);
    },
    /** gc_message_len: Length in the buffer of the message of the last refusal. */
    message() {
      return io.text(ex.gc_message_len());
    },
  };
}

/** A whole number as Go's text.Int reads it (an optional sign, decimal digits, within int64), or null. */
export function wholeNumber(s: string): bigint | null {
  if (!/^[+-]?\d+$/.test(s)) return null;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : null;
}

/** A field of a line: its property, what starts it, what ends it ("": the rest of the line), and whether it is a whole number. */
type LineField = readonly [name: string, before: string, after: string, int: boolean];

/** Writes a line by its fields, "\n" included; a "\r" or "\n" inside a field becomes a space. */
function formatLine(fields: readonly LineField[], v: object): string {
  let s = "";
  for (const [name, before, after] of fields) {
    s += before + String((v as Record<string, unknown>)[name]).replace(/[\r\n]/g, " ") + after;
  }
  return s + "\n";
}

/** Option is a "name=value" line: in the Attributes frame, an attribute as the page gave it (the DOMStringMap's name: ttlMs, …), data-scope as one scope= line per prefix the shim resolved against the page, the page's origin as pageOrigin=, and navigation=reload when the page is a reload (F5); in the Options frame, an option in force, as guard.ParseAttributes normalized it, then the scope again. */
export interface Option {
  name: string;
  value: string;
}

const optionLine: readonly LineField[] = [["name", "", "=", false], ["value", "", "", false]];

/** Reads an Option line, or null when it is not one. */
export function parseOption(line: string): Option | null {
  const m = /^(.*?)=(.*)$/s.exec(line);
  return m ? { name: m[1]!, value: m[2]! } : null;
}

/** Warning is a "!text" line of the Options frame: an attribute Go refused, and the value it used instead. */
export interface Warning {
  text: string;
}

const warningLine: readonly LineField[] = [["text", "!", "", false]];

/** Reads a Warning line, or null when it is not one. */
export function parseWarning(line: string): Warning | null {
  const m = /^!(.*)$/s.exec(line);
  return m ? { text: m[1]! } : null;
}

/** Pause is an "untilMs strikes service" line of the Pauses frame: the service (a scope entry, or an origin) is paused until untilMs after strikes 429s in a row. */
export interface Pause {
  untilMs: number;
  strikes: number;
  /** never empty in a line Go wrote */
  service: string;
}

const pauseLine: readonly LineField[] = [["untilMs", "", " ", true], ["strikes", "", " ", true], ["service", "", "", false]];

/** Reads a Pause line, or null when it is not one. */
export function parsePause(line: string): Pause | null {
  const m = /^([+-]?\d+) ([+-]?\d+) (.*)$/s.exec(line);
  const untilMs = m && wholeNumber(m[1]!);
  const strikes = m && wholeNumber(m[2]!);
  return m && untilMs !== null && strikes !== null ? { untilMs: Number(untilMs), strikes: Number(strikes), service: m[3]! } : null;
}

/** Asked is a "retry-after service" line of the Pauses frame: it follows the Pause of the service, and says the server asked for that pause with Retry-After. A reader that skips it still reads every pause right. */
export interface Asked {
  service: string;
}

const askedLine: readonly LineField[] = [["service", "retry-after ", "", false]];

/** Reads an Asked line, or null when it is not one. */
export function parseAsked(line: string): Asked | null {
  const m = /^retry-after (.*)$/s.exec(line);
  return m ? { service: m[1]! } : null;
}

/** Reads an Attributes frame: gc_configure's argument, the script tag's data-* attributes as given, the resolved scope and the page's origin. Lines that are not Option lines are skipped. */
export function readAttributesFrame(s: string): Option[] {
  return s.split("\n").flatMap((line) => parseOption(line) ?? []);
}

/** Writes an Attributes frame. */
export function writeAttributesFrame(lines: readonly Option[]): string {
  return lines.map((v) => formatLine(optionLine, v)).join("");
}

/** A line of an Options frame, by its kind. */
export type OptionsLine = { warning: Warning } | { option: Option };

/** Reads an Options frame, in order: gc_configure's answer, the options in force (guard.ParseAttributes) and one warning per refused attribute. A line of no kind is skipped. */
export function readOptionsFrame(s: string): OptionsLine[] {
  const lines: OptionsLine[] = [];
  for (const line of s.split("\n")) {
    const warning = parseWarning(line);
    if (warning) {
      lines.push({ warning });
      continue;
    }
    const option = parseOption(line);
    if (option) {
      lines.push({ option });
    }
  }
  return lines;
}

/** Writes an Options frame. */
export function writeOptionsFrame(lines: readonly OptionsLine[]): string {
  let s = "";
  for (const l of lines) {
    if ("warning" in l) s += formatLine(warningLine, l.warning);
    else s += formatLine(optionLine, l.option);
  }
  return s;
}

/** A line of a Pauses frame, by its kind. */
export type PausesLine = { asked: Asked } | { pause: Pause };

/** Reads a Pauses frame, in order: the 429 pauses as stored (cooldown.Encode, key gateway_cooldown_v1) and as gc_pauses gives them. A line of no kind is skipped. */
export function readPausesFrame(s: string): PausesLine[] {
  const lines: PausesLine[] = [];
  for (const line of s.split("\n")) {
    const asked = parseAsked(line);
    if (asked) {
      lines.push({ asked });
      continue;
    }
    const pause = parsePause(line);
    if (pause) {
      lines.push({ pause });
    }
  }
  return lines;
}

/** Writes a Pauses frame. */
export function writePausesFrame(lines: readonly PausesLine[]): string {
  let s = "";
  for (const l of lines) {
    if ("asked" in l) s += formatLine(askedLine, l.asked);
    else s += formatLine(pauseLine, l.pause);
  }
  return s;
}

/** The quiet-status table gc_configure writes for the default options (guard.Uneventful), as runs [first, last] of the statuses whose answer changes nothing: for fakes of the engine. */
export const DEFAULT_UNEVENTFUL: readonly (readonly [number, number])[] = [[-1, -1], [100, 428], [430, 499]];
