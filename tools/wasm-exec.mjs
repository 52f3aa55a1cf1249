// go test -exec for GOOS=js GOARCH=wasm (make test-wasm): Go's
// wasm_exec_node.js, plus the storage imports the page's glue gives the wasm
// (js/src/gostorage.ts, bundled to build/wasmtest/gostorage.mjs). They reach
// the sessionStorage of globalThis.__storageHost when a test set one (a fake,
// see internal/jsbridge's tests), else of globalThis (Node has none).
//
//   GOOS=js GOARCH=wasm go test -exec="node --stack-size=8192 $PWD/tools/wasm-exec.mjs" ./internal/...

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";

const root = new URL("..", import.meta.url).pathname;
const { IMPORT_MODULE, goStorage, sessionStorageOf } = await import(join(root, "build/wasmtest/gostorage.mjs"));

if (process.argv.length < 3) {
  console.error("usage: wasm-exec.mjs [wasm binary] [arguments]");
  process.exit(1);
}
const require = createRequire(import.meta.url);
globalThis.require = require;
globalThis.fs = require("node:fs");
globalThis.path = require("node:path");
const goroot = process.env.GOROOT || execFileSync("go", ["env", "GOROOT"], { encoding: "utf8" }).trim();
require(join(goroot, "lib/wasm/wasm_exec.js"));

const go = new globalThis.Go();
go.argv = process.argv.slice(2);
go.env = Object.assign({ TMPDIR: tmpdir() }, process.env);
go.exit = process.exit;
let memory = null;
const imports = {
  ...go.importObject,
  [IMPORT_MODULE]: goStorage(() => memory, () => sessionStorageOf(globalThis.__storageHost ?? globalThis)),
};
WebAssembly.instantiate(readFileSync(process.argv[2]), imports)
  .then((result) => {
    memory = result.instance.exports.mem;
    process.on("exit", (code) => {
      // Node exits when nothing is pending: make Go report the deadlock.
      if (code === 0 && !go.exited) {
        go._pendingEvent = { id: 0 };
        go._resume();
      }
    });
    return go.run(result.instance);
  })
  .catch((err) => {
    console.error(err);
    process.exit(1);
  });
