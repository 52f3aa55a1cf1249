import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { MemoryStorage } from "../test/memory-storage.js";
import { STORAGE_KEY } from "./policy.gen.js";
import { type StorageLike, readPauses, readRaw, restorePhase, sessionStorageOf, toStored, writeRaw } from "./storage.js";

interface Vectors {
  nowMs: number;
  maxTtlMs: number;
  vectors: { name: string; raw: string | null; want: { armed: boolean; until?: number; httpStatus?: number; action: string } }[];
  phaseVectors: { name: string; raw: string; want: { phase: string; action: string; until?: number; httpStatus?: number; strikes?: number; halfOpenUntil?: number } }[];
}

// The same file the Go reader runs (internal/circuit/payload_test.go).
const file = JSON.parse(readFileSync("internal/circuit/testdata/payload_vectors.json", "utf8")) as Vectors;

test("shared payload vectors", async (t) => {
  assert.ok(file.vectors.length > 20);
  for (const v of file.vectors) {
    await t.test(v.name, () => {
      const { phase, stored, action } = restorePhase(v.raw, file.nowMs, file.maxTtlMs);
      assert.equal(action, v.want.action);
      assert.equal(phase === "open", v.want.armed);
      if (v.want.armed) assert.deepEqual({ until: stored!.until, httpStatus: stored!.httpStatus }, { until: v.want.until, httpStatus: v.want.httpStatus });
    });
  }
});

test("shared half-open vectors", async (t) => {
  assert.ok(file.phaseVectors.length > 20);
  for (const v of file.phaseVectors) {
    await t.test(v.name, () => {
      const { phase, stored, action } = restorePhase(v.raw, file.nowMs, file.maxTtlMs);
      assert.equal(phase, v.want.phase);
      assert.equal(action, v.want.action);
      if (v.want.phase !== "closed") {
        const { phase: _p, action: _a, ...want } = v.want;
        assert.deepEqual(stored, want);
        assert.deepEqual(restorePhase(toStored(stored!), file.nowMs, file.maxTtlMs).stored, stored, "written back, read the same");
      }
    });
  }
});


test("storage that throws means closed and never throws past the module", () => {
  const throwing: StorageLike = {
    getItem() {
      throw new Error("SecurityError");
    },
    setItem() {
      throw new Error("QuotaExceededError");
    },
    removeItem() {
      throw new Error("SecurityError");
    },
  };
  assert.equal(readRaw(throwing), null);
  assert.doesNotThrow(() => writeRaw(throwing, "x"));
  assert.doesNotThrow(() => writeRaw(throwing, null));
  assert.equal(readRaw(null), null);
});

test("sessionStorageOf survives a throwing getter", () => {
  const g = {};
  Object.defineProperty(g, "sessionStorage", {
    get() {
      throw new Error("The document is sandboxed and lacks the 'allow-same-origin' flag.");
    },
  });
  assert.equal(sessionStorageOf(g), null);
  assert.equal(sessionStorageOf({ sessionStorage: null }), null);
  const s = new MemoryStorage();
  assert.equal(sessionStorageOf({ sessionStorage: s }), s);
});

test("writeRaw writes the shared key", () => {
  const s = new MemoryStorage();
  writeRaw(s, `{"until":1,"httpStatus":502}`);
  assert.equal(s.getItem(STORAGE_KEY), `{"until":1,"httpStatus":502}`);
  writeRaw(s, null);
  assert.equal(s.getItem(STORAGE_KEY), null);
});

test("readPauses: the lines Go writes, clamped and defensive", () => {
  const now = 1_700_000_000_000;
  const raw = `${now + 60_000} 1 http://a.test/api/\nretry-after http://a.test/api/\ngarbage\n${now - 1} 2 http://old.test\n99999999999999999 1 http://far.test\n`;
  assert.deepEqual(readPauses(raw, now), [
    { until: now + 60_000, service: "http://a.test/api/", serverAsked: true },
    { until: now + 1_800_000, service: "http://far.test", serverAsked: false },
  ]);
  assert.deepEqual(readPauses(null, now), []);
});

test("readPauses reads the stored pauses as Go's cooldown.Restore does: the shared vectors", () => {
  const file = JSON.parse(readFileSync("policy/cooldown/testdata/pause_vectors.json", "utf8")) as {
    now: number;
    vectors: { name: string; raw: string; want: [string, number, boolean][] }[];
  };
  for (const v of file.vectors) {
    const got = readPauses(v.raw, file.now).map((p) => [p.service, p.until, p.serverAsked]);
    const sort = (a: unknown[][]) => a.map((x) => JSON.stringify(x)).sort();
    assert.deepEqual(sort(got), sort(v.want), v.name);
  }
});
