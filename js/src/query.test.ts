import assert from "node:assert/strict";
import { test } from "node:test";
import { GatewayHttpError, isCircuitOpenError, isGatewayError } from "./errors.js";
import { createFetchJSON, createRetry, toGatewayError } from "./query.js";

const open = () =>
  new Response(`{"error":"gateway_circuit_open","httpStatus":502,"until":123}`, {
    status: 503,
    headers: { "x-gateway-circuit": "open" },
  });

test("a synthetic 503 becomes an open-circuit error carrying the original status", async () => {
  const e = await toGatewayError(open());
  assert.ok(isGatewayError(e) && isCircuitOpenError(e));
  assert.equal(e.code, "GATEWAY_CIRCUIT_OPEN");
  assert.equal(e.status, 503);
  assert.equal(e.httpStatus, 502);
  assert.equal(e.until, 123);
  assert.equal(e.reason, "open");
});

test("a cooldown answer says so", async () => {
  const e = await toGatewayError(
    new Response(`{"error":"gateway_cooldown","httpStatus":429,"until":5}`, {
      status: 503,
      headers: { "x-gateway-circuit": "cooldown" },
    }),
  );
  assert.ok(isCircuitOpenError(e));
  assert.equal(e.reason, "cooldown");
  assert.equal(e.httpStatus, 429);
});

test("a real 503 is not an open-circuit error", async () => {
  const e = await toGatewayError(new Response("down", { status: 503 }));
  assert.ok(isGatewayError(e) && !isCircuitOpenError(e));
  assert.equal(e.code, "GATEWAY_HTTP_ERROR");
  assert.equal(e.httpStatus, 503);
});

test("the guards work on a copy from another bundle (brand, not instanceof)", () => {
  const foreign = Object.assign(new Error("x"), { [Symbol.for("gatewaycircuit.error")]: true, circuitOpen: true });
  assert.ok(isGatewayError(foreign));
  assert.ok(isCircuitOpenError(foreign));
  assert.ok(!isGatewayError(new Error("plain")));
  assert.ok(!isGatewayError(null) && !isGatewayError("GATEWAY_CIRCUIT_OPEN"));
});

test("fetchJSON parses 2xx and throws for the rest", async () => {
  const responses = [new Response(`{"a":1}`), new Response(null, { status: 204 }), new Response("nope", { status: 404 })];
  const f = createFetchJSON((async () => responses.shift()!) as typeof fetch);
  assert.deepEqual(await f("/x"), { a: 1 });
  assert.equal(await f("/x"), null);
  await assert.rejects(f("/x"), (e: unknown) => isGatewayError(e) && e.httpStatus === 404);
});

test("retry: never an open circuit, a trip status or a 4xx; others up to 3 times", () => {
  const retry = createRetry([502, 503, 504]);
  const err = (httpStatus: number, circuitOpen = false) =>
    new GatewayHttpError({ status: circuitOpen ? 503 : httpStatus, httpStatus, circuitOpen, until: null, url: "/x" });
  assert.equal(retry(0, err(502, true)), false);
  assert.equal(retry(0, err(502)), false);
  assert.equal(retry(0, err(404)), false);
  assert.equal(retry(0, err(408)), true);
  assert.equal(retry(0, err(500)), true);
  assert.equal(retry(3, err(500)), false);
  assert.equal(retry(1, new TypeError("Failed to fetch")), true);
});

test("retry never retries a refused mutation", async () => {
  const { GatewayIdempotencyError } = await import("./errors.js");
  const retry = createRetry([502, 503, 504]);
  assert.equal(retry(0, new GatewayIdempotencyError(-7, "bad key")), false);
});
