// The boundary: loads the wasm and gives the rest of the shim typed calls
// into Go. Every name, value and layout that crosses is generated from
// internal/abi (abi.gen.ts), the typed calls too (bindCalls); this file gives
// them Go's memory, and adds what is JS's. Nothing per request goes through
// syscall/js; Go reaches sessionStorage through gostorage.ts.
//
// Go's memory can grow during any call: every view over it is taken after
// the call that could grow it (mem() re-creates views over a detached buffer).

import { bindCalls, type Exports, IMPORT_MODULE, Limit, Status } from "./abi.gen.js";
import { type GoRuntime, newGo, runGo } from "./goruntime.js";
import { decoder, encoder, goStorage } from "./gostorage.js";
import { sessionStorageOf } from "./storage.js";

/** What to do with a network answer (gc_finish): its flags, and out (FinishOut). */
export type Outcome = ReturnType<Engine["finish"]>;

/** The calls into Go (separate from loading, so the tests can fake it). */
export type Engine = Omit<ReturnType<typeof bind>, "configure" | "text">;

/**
 * Starts the wasm `compiled` (the tag's file fetched and compiled it, while
 * this file loaded), then hands it the attributes; the result carries Go's
 * Options frame (the options in force, and warnings).
 */
export async function loadEngine(compiled: Promise<WebAssembly.Module>, attributes: string): Promise<{ engine: Engine; options: string }> {
  const go = newGo();
  const storage = sessionStorageOf(globalThis);
  let memory: WebAssembly.Memory | null = null;
  const imports = { ...go.importObject, [IMPORT_MODULE]: { ...goStorage(() => memory!, () => storage) } };
  const instance = await WebAssembly.instantiate(await compiled, imports);
  memory = (instance.exports as unknown as Exports).mem;
  // run() executes main synchronously until it parks; the exports work from here.
  const exited = runGo(go, instance).then(() => {
    throw new Error("the Go program exited");
  });
  exited.catch(() => {});
  if (go.exited) throw new Error("the Go program exited during start-up");
  const engine = bind(untilExit(instance.exports as unknown as Exports, go), exited);
  const n = engine.configure(Date.now(), attributes);
  if (n < 0) throw new Error(`invalid configuration: ${engine.message()}`);
  return { engine, options: engine.text(n) };
}

/**
 * The exports, each throwing instead of running once the Go program has
 * exited: a panic inside an export ends the program without settling
 * go.run()'s promise (only run() and a resumed event do), and the exports of
 * a dead runtime still answer. The facade falls back on the throw.
 */
function untilExit(ex: Exports, go: GoRuntime): Exports {
  const guarded: Record<string, unknown> = { mem: ex.mem };
  for (const [name, f] of Object.entries(ex)) {
    if (typeof f !== "function") continue;
    // Six arguments, the most an export takes: no array per call.
    guarded[name] = (a: number, b: number, c: number, d: number, e: number, g: number) => {
      if (go.exited) throw new Error("the Go program exited");
      return (f as (...n: number[]) => number)(a, b, c, d, e, g);
    };
  }
  return guarded as unknown as Exports;
}

/** The typed calls over the exports. */
export function bind(ex: Exports, exited: Promise<void>) {
  const outPtr = ex.gc_out();
  const quietPtr = ex.gc_quiet();
  const statusesPtr = ex.gc_quiet_statuses();
  let cap = 8192;
  let ptr = ex.gc_reserve(cap);
  let buffer: ArrayBuffer | null = null;
  let bytes = new Uint8Array(0);
  let out = new Float64Array(0);
  let quietBits = new Int32Array(0);
  let statuses = new Uint8Array(0);
  /** Views over Go's memory, re-created after a growth detached them or the buffer moved. */
  const mem = () => {
    if (ex.mem.buffer !== buffer) {
      buffer = ex.mem.buffer as ArrayBuffer;
      bytes = new Uint8Array(buffer, ptr, cap);
      out = new Float64Array(buffer, outPtr, Limit.OutLen);
      quietBits = new Int32Array(buffer, quietPtr, 1);
      statuses = new Uint8Array(buffer, statusesPtr, Limit.QuietStatusLen);
    }
  };
  const put = (s: string, refuse?: boolean) => {
    const worst = s.length * 3; // UTF-16 code unit → at most 3 UTF-8 bytes
    if (worst > cap) {
      if (worst > Limit.MaxFrame) {
        const exact = encoder.encode(s).length;
        if (exact > Limit.MaxFrame && refuse) return -1;
        if (exact > Limit.MaxFrame) throw new Error(`frame of ${exact} bytes`);
      }
      ptr = ex.gc_reserve(Math.min(worst, Limit.MaxFrame));
      cap = Math.min(worst, Limit.MaxFrame);
      buffer = null; // the buffer moved (and memory may have grown)
    }
    mem();
    return encoder.encodeInto(s, bytes).written; // whole: the buffer holds 3 bytes per code unit
  };
  const text = (n: number) => {
    ptr = ex.gc_buf(); // Go may have grown it to write
    cap = Math.max(cap, n);
    buffer = null;
    mem();
    return decoder.decode(new Uint8Array(ex.mem.buffer, ptr, n).slice());
  };
  const putBody = (b: Uint8Array) => {
    const at = ex.gc_body(b.length); // may grow memory: the view is taken after
    if (b.length) new Uint8Array(ex.mem.buffer, at, b.length).set(b);
  };
  const calls = bindCalls(ex, { put, body: putBody, out: () => (mem(), out), text });

  return {
    ...calls,
    text,
    // The two reads on the quiet path, per request: Go's statics never move,
    // so their views go stale only when a growth detaches them (a detached
    // view has length 0), and that is checked without asking the Memory.
    /** The Quiet bits. */
    quiet(): number {
      if (quietBits.length === 0) mem();
      return quietBits[0]!;
    },
    /** An answer with this status (or Status.Opaque) to a plain GET on the quiet path changes nothing (guard.Uneventful). */
    uneventful(status: number): boolean {
      if (statuses.length === 0) mem();
      return statuses[status - Status.Opaque] === 1;
    },
    /** Keeps a body as the ticket's copy; returns its id (0: not kept). null: no copy was taken (Go lets the ticket go). */
    store(now: number, ticket: number, body: ArrayBuffer | null): number {
      if (!body) return ex.gc_store(now, ticket, -1, -1);
      // A short body goes to Go whole: it decides whether it is "empty".
      const small = body.byteLength <= Limit.ShortBody ? body.byteLength : -1;
      if (small > 0) putBody(new Uint8Array(body));
      return ex.gc_store(now, ticket, body.byteLength, small);
    },
    memoryBytes: () => ex.mem.buffer.byteLength,
    /** Settles when the Go program stops; it should never. */
    exited,
  };
}
