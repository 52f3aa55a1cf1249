// The engine's file: dist/gateway-circuit-engine.<hash>.js, beside the tag's
// file; the facade's file loads it without blocking the page (facade-file.ts):
// Go's wasm_exec.js, the wasm loader and the Go path. It only registers itself;
// the facade's file hands it the compiling wasm and takes the running engine.

import { takeGoGlobals } from "./goruntime.js"; // first: it records the page's globals before wasm_exec.js runs
import "../../build/wasm_exec.js";
import type { Started } from "./circuit.js";
import { readGoOptions } from "./config.js";
import { loadEngine } from "./engine.js";
import { createGoPath } from "./gopath.js";

/** What this file registers for the tag's file, under Symbol.for("gatewaycircuit.engine"). */
export interface EngineFile {
  start(compiled: Promise<WebAssembly.Module>, attributes: string): Promise<Started>;
}

takeGoGlobals();

(globalThis as unknown as Record<symbol, EngineFile>)[Symbol.for("gatewaycircuit.engine")] = {
  start: (compiled, attributes) => loadEngine(compiled, attributes).then((r) => ({ ...r, createGoPath, readGoOptions })),
};
