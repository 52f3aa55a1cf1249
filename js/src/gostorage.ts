// sessionStorage as the wasm reaches it: the functions of IMPORT_MODULE
// (internal/abi Imports says why not through syscall/js), given to the wasm
// when it is instantiated. Go keeps the circuit, the pauses and the
// idempotency ledger there.

import { type Imports, StorageResult } from "./abi.gen.js";
import type { StorageLike } from "./storage.js";

export const encoder = new TextEncoder();
export const decoder = new TextDecoder();

/**
 * The imports over the storage `storage()` returns (null: none, as in a
 * sandboxed frame). `memory()` is the instance's memory, read at each call:
 * Go's memory grows, and the glue exists before the instance does.
 */
export function goStorage(memory: () => WebAssembly.Memory, storage: () => StorageLike | null): Imports {
  const text = (at: number, n: number) => decoder.decode(new Uint8Array(memory().buffer, at, n));
  /** `f`'s result over the storage (0 when it returns none); Unavailable when there is none or it throws (Quota when `set` found it full). */
  const use = (f: (s: StorageLike) => number | void, set = false): number => {
    try {
      const s = storage();
      return s ? (f(s) ?? 0) : StorageResult.Unavailable;
    } catch (e) {
      return set && /quota/i.test(`${(e as Error)?.name} ${(e as Error)?.message}`) ? StorageResult.Quota : StorageResult.Unavailable;
    }
  };
  return {
    storage_get: (key, keyLen, dst, dstCap) =>
      use((s) => {
        const v = s.getItem(text(key, keyLen));
        if (typeof v !== "string") return StorageResult.Missing;
        const { read, written } = encoder.encodeInto(v, new Uint8Array(memory().buffer, dst, dstCap));
        // Cut short: Go calls again with room for all of it.
        return read === v.length ? written : encoder.encode(v).length;
      }),
    storage_set: (key, keyLen, value, valueLen) => use((s) => s.setItem(text(key, keyLen), text(value, valueLen)), true),
    storage_remove: (key, keyLen) => use((s) => s.removeItem(text(key, keyLen))),
  };
}
