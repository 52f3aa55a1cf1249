import assert from "node:assert/strict";
import { test } from "node:test";
import * as server from "./server.js";
import * as browser from "./index.js";

test("the server entry exports every guard the types promise", () => {
  for (const name of Object.keys(browser).filter((k) => k.startsWith("is"))) {
    assert.equal(typeof (server as Record<string, unknown>)[name], "function", name);
  }
  assert.ok(server.isIdempotencyError);
});
