import assert from "node:assert/strict";
import { test } from "node:test";
import { ARMED_ATTRIBUTE, markIfArmed } from "./marker.js";

function page(stored: string | null | (() => never)) {
  const attrs = new Map<string, string>();
  const root = { setAttribute: (k: string, v: string) => attrs.set(k, v) } as unknown as Element;
  const sessionStorage = {
    getItem: () => (typeof stored === "function" ? stored() : stored),
    setItem: () => assert.fail("the marker never writes"),
    removeItem: () => assert.fail("the marker never removes"),
  };
  return { root, host: { sessionStorage }, attrs };
}

const NOW = 1_700_000_000_000;

test("an armed stored circuit marks <html> before first paint", () => {
  const p = page(`{"until":${NOW + 5000},"httpStatus":502}`);
  assert.equal(markIfArmed(p.root, p.host, NOW, 600_000), true);
  assert.equal(p.attrs.get(ARMED_ATTRIBUTE), "armed");
});

test("expired, malformed, wrong-typed and missing entries leave <html> alone (and are not touched)", () => {
  for (const stored of [null, `{"until":${NOW},"httpStatus":502}`, "{", `{"until":"${NOW + 5000}","httpStatus":502}`, `{"until":${NOW + 5000},"httpStatus":99}`]) {
    const p = page(stored);
    assert.equal(markIfArmed(p.root, p.host, NOW, 600_000), false, String(stored));
    assert.equal(p.attrs.size, 0);
  }
});

test("a far-future entry still counts as armed (the module clamps it)", () => {
  const p = page(`{"until":${NOW + 86_400_000},"httpStatus":503}`);
  assert.equal(markIfArmed(p.root, p.host, NOW, 600_000), true);
});

test("storage that throws means closed, never an exception", () => {
  const p = page(() => {
    throw new DOMException("denied", "SecurityError");
  });
  assert.equal(markIfArmed(p.root, p.host, NOW, 600_000), false);
  const hostile = Object.defineProperty({}, "sessionStorage", {
    get() {
      throw new DOMException("sandboxed", "SecurityError");
    },
  });
  assert.equal(markIfArmed(p.root, hostile, NOW, 600_000), false);
});
