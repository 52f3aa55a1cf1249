import assert from "node:assert/strict";
import { test } from "node:test";
import { MemoryStorage } from "../test/memory-storage.js";
import { StorageResult } from "./abi.gen.js";
import { goStorage } from "./gostorage.js";
import type { StorageLike } from "./storage.js";

/** A stand-in for Go's memory: strings written at fixed addresses, as Go passes them. */
function goMemory() {
  const memory = new WebAssembly.Memory({ initial: 1 });
  const bytes = () => new Uint8Array(memory.buffer);
  let next = 16;
  const put = (s: string) => {
    const b = new TextEncoder().encode(s);
    bytes().set(b, next);
    const at = next;
    next += b.length + 16;
    return [at, b.length] as const;
  };
  const read = (at: number, n: number) => new TextDecoder().decode(bytes().subarray(at, at + n));
  return { memory, put, read };
}

test("get, set and remove cross as UTF-8 in Go's memory", () => {
  const { memory, put, read } = goMemory();
  const storage = new MemoryStorage();
  const imp = goStorage(() => memory, () => storage);
  const key = put("gateway_idempotency_v1");
  const value = put("잠시 후 다시 시도해 주세요");
  assert.equal(imp.storage_set(...key, ...value), 0);
  assert.equal(storage.getItem("gateway_idempotency_v1"), "잠시 후 다시 시도해 주세요");

  const dst = 4096;
  const n = imp.storage_get(...key, dst, 1024);
  assert.equal(n, value[1]);
  assert.equal(read(dst, n), "잠시 후 다시 시도해 주세요");

  assert.equal(imp.storage_remove(...key), 0);
  assert.equal(imp.storage_get(...key, dst, 1024), StorageResult.Missing);
});

test("a value longer than Go's buffer: its whole length, to call again with room", () => {
  const { memory, put, read } = goMemory();
  const long = "한".repeat(100); // 300 bytes
  const storage = new MemoryStorage();
  storage.setItem("k", long);
  const imp = goStorage(() => memory, () => storage);
  const key = put("k");
  assert.equal(imp.storage_get(...key, 8192, 10), 300);
  assert.equal(imp.storage_get(...key, 8192, 300), 300);
  assert.equal(read(8192, 300), long);
});

test("no storage, or storage that throws: Unavailable; a full one: Quota; never a throw", () => {
  const { memory, put } = goMemory();
  const key = put("k");
  const value = put("v");
  const none = goStorage(() => memory, () => null);
  assert.equal(none.storage_get(...key, 8192, 10), StorageResult.Unavailable);
  assert.equal(none.storage_set(...key, ...value), StorageResult.Unavailable);
  assert.equal(none.storage_remove(...key), StorageResult.Unavailable);

  const denied = () => {
    throw new DOMException("The document is sandboxed", "SecurityError");
  };
  const throwing: StorageLike = { getItem: denied, setItem: denied, removeItem: denied };
  const sandboxed = goStorage(() => memory, () => throwing);
  assert.equal(sandboxed.storage_get(...key, 8192, 10), StorageResult.Unavailable);
  assert.equal(sandboxed.storage_set(...key, ...value), StorageResult.Unavailable);
  assert.equal(sandboxed.storage_remove(...key), StorageResult.Unavailable);

  const full = new MemoryStorage();
  full.setItem = () => {
    throw new DOMException("Setting the value of 'k' exceeded the quota.", "QuotaExceededError");
  };
  assert.equal(goStorage(() => memory, () => full).storage_set(...key, ...value), StorageResult.Quota);
});

test("Go's memory is read at each call: a grown memory is seen", () => {
  const { memory, put, read } = goMemory();
  const storage = new MemoryStorage();
  storage.setItem("k", "after growth");
  const imp = goStorage(() => memory, () => storage);
  const key = put("k");
  memory.grow(1); // detaches the old buffer, as Go's growth does
  const n = imp.storage_get(...key, 70_000, 100);
  assert.equal(read(70_000, n), "after growth");
});
