import assert from "node:assert/strict";
import { test } from "node:test";
import { RELOAD, storedStateChanged, tellFrames } from "./frames.js";
import { StateMirror } from "./state.js";

/** A window of a fake frame tree: `reloads` counts calls of its instance's reload; `foreign` throws as another origin does. */
function win(children: object[] = [], { foreign = false, instance = true } = {}) {
  const w: Record<string | number, unknown> & { reloads: number } = { reloads: 0, length: children.length };
  children.forEach((c, i) => {
    w[i] = c;
    (c as { parent?: unknown }).parent = w;
  });
  if (instance) w.gatewayCircuit = { [RELOAD]: () => w.reloads++ };
  if (foreign) {
    return new Proxy(w, {
      get(t, k) {
        if (k === "length" || typeof k === "string" && /^\d+$/.test(k) || k === "reloads") return t[k as string];
        throw new DOMException("Blocked a frame", "SecurityError");
      },
    });
  }
  return w;
}

test("every other instance of the tab is told, across a frame of another origin, never the one that changed", () => {
  const grandchild = win();
  const foreign = win([grandchild], { foreign: true });
  const sibling = win();
  const bare = win([], { instance: false });
  const self = win();
  const top = win([self, sibling, foreign, bare]);
  for (const w of [top, self, sibling, foreign, grandchild, bare]) (w as Record<string, unknown>).top = top;
  tellFrames(self as unknown as Window);
  assert.deepEqual(
    [top, self, sibling, grandchild].map((w) => w.reloads),
    [1, 0, 1, 1],
  );
});

test("a storage event of the circuit or the pauses, in this storage, is a change; the ledger's is not", () => {
  const storage = {};
  const ev = (key: string | null, area: unknown = storage) => ({ key, storageArea: area }) as unknown as StorageEvent;
  const keys = ["gateway_circuit_v1", "gateway_cooldown_v1"];
  assert.equal(storedStateChanged(ev("gateway_circuit_v1"), storage, keys), true);
  assert.equal(storedStateChanged(ev("gateway_cooldown_v1"), storage, keys), true);
  assert.equal(storedStateChanged(ev(null), storage, keys), true, "storage.clear()");
  assert.equal(storedStateChanged(ev("gateway_idempotency_v1"), storage, keys), false);
  assert.equal(storedStateChanged(ev("gateway_circuit_v1", {}), storage, keys), false, "localStorage, say");
  assert.equal(storedStateChanged(ev("gateway_circuit_v1"), null, keys), false);
});

test("the mirror says it changed before its listeners hear it, and only when it did", () => {
  const order: string[] = [];
  const m = new StateMirror(() => 0, () => {}, () => order.push("changed"));
  m.subscribe(() => order.push("listener"));
  m.set({ until: 10, httpStatus: 502 });
  m.set({ until: 10, httpStatus: 502 });
  m.set(null);
  assert.deepEqual(order, ["changed", "listener", "changed", "listener"]);
});
