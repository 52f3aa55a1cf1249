import assert from "node:assert/strict";
import { test } from "node:test";
import * as server from "./server.js";
import * as browser from "./index.js";

test("the server entry exports every function the browser entry does", () => {
  for (const name of Object.keys(browser).filter((k) => typeof (browser as Record<string, unknown>)[k] === "function")) {
    assert.equal(typeof (server as Record<string, unknown>)[name], "function", name);
  }
  assert.ok(server.isIdempotencyError);
});
