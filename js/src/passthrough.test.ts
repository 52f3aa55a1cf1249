import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { GatewayHttpError } from "./errors.js";
import { gatewayCircuit as browserFacade, getGatewayCircuit } from "./index.js";
import { gatewayCircuit as serverFacade } from "./server.js";

const g = globalThis as { gatewayCircuit?: unknown };
afterEach(() => {
  delete g.gatewayCircuit;
});

test("the server entry guards nothing and never throws", async () => {
  assert.equal(serverFacade.status, "fallback");
  assert.match(serverFacade.error!.message, /no circuit on the server/);
  await serverFacade.ready; // resolves: awaiting it never breaks a render
  assert.equal(serverFacade.read(), null);
  const unsubscribe = serverFacade.subscribe(() => assert.fail("never called"));
  unsubscribe();
  serverFacade.clear();
  assert.equal(serverFacade.arm(502, 1000).httpStatus, 502);
  assert.equal(serverFacade.read(), null, "arm stores nothing");
  assert.throws(() => serverFacade.arm(42), RangeError);
});

test("the server entry keeps the TanStack helpers' meaning", () => {
  const tripped = new GatewayHttpError({ status: 502, httpStatus: 502, circuitOpen: false, until: null, url: "/api/x" });
  // Nothing is held as down: a 502 is retried with backoff, as TanStack would.
  assert.equal(serverFacade.retry(0, tripped), true);
  assert.equal(serverFacade.retryDelay(1, tripped), 2000);
  assert.equal(serverFacade.retry(0, new TypeError("network")), true);
  assert.equal(serverFacade.retry(3, new TypeError("network")), false);
  assert.ok(serverFacade.isGatewayError(tripped));
});

test("the browser entry delegates, at call time, to the script tag's instance", () => {
  const calls: string[] = [];
  g.gatewayCircuit = {
    read: () => (calls.push("read"), { until: 1, httpStatus: 502 }),
    clear: () => calls.push("clear"),
    blocking: () => (calls.push("blocking"), { circuit: { until: 1, httpStatus: 502 }, halfOpen: false, pauses: [] }),
    status: "ready",
  };
  const retry = browserFacade.retry; // passed around unbound, as TanStack does
  assert.deepEqual(browserFacade.read(), { until: 1, httpStatus: 502 });
  browserFacade.clear();
  assert.equal(retry(2, null), false, "the instance holds the gateway as down");
  assert.equal(browserFacade.status, "ready");
  assert.deepEqual(calls, ["read", "clear", "blocking"]);
});

test("without the script tag the browser entry passes through and warns once", async (t) => {
  const warn = t.mock.method(console, "warn", () => {});
  const a = getGatewayCircuit();
  const b = getGatewayCircuit();
  assert.equal(a, b);
  assert.equal(warn.mock.callCount(), 1);
  assert.match(String(warn.mock.calls[0]!.arguments[0]), /window\.gatewayCircuit is not defined/);
  assert.equal(browserFacade.status, "fallback");
  assert.equal(browserFacade.read(), null);
});
