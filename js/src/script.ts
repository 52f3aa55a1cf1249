// The classic <script> entry: dist/gateway-circuit.js. It defines
// window.gatewayCircuit synchronously, before any app code runs.
//
//   <script src="/gateway-circuit.js" data-wasm="/gateway-circuit.wasm" data-scope="/api/"></script>

import "./goruntime.js"; // first: it records the page's globals before wasm_exec.js runs
import "../../build/wasm_exec.js";
import { RELOAD, createGatewayCircuit, withoutQueries } from "./circuit.js";
import { loadEngine } from "./engine.js";
import { type DataAttributes, readOptions } from "./config.js";
import { takeGoGlobals } from "./goruntime.js";
import { sessionStorageOf } from "./storage.js";
import type { GatewayCircuit } from "./types.js";

declare global {
  interface Window {
    gatewayCircuit: GatewayCircuit;
  }
}

takeGoGlobals();

const g = globalThis as unknown as { gatewayCircuit?: GatewayCircuit } & Record<symbol, string>;
const FIRST = Symbol.for("gatewaycircuit.attributes");
const script = document.currentScript as HTMLScriptElement | null;
const data = { ...(script?.dataset ?? {}) } as DataAttributes;
if (g.gatewayCircuit) {
  // One circuit per page: a second tag changes nothing, and says so when it asked for other settings.
  if (g[FIRST] !== undefined && g[FIRST] !== JSON.stringify(data)) {
    console.warn("[gatewaycircuit] a second script tag with other data-* settings was ignored: the first tag's settings are in force");
  }
} else {
  g[FIRST] = JSON.stringify(data);
  const { options, problems } = readOptions(data, document.baseURI, script?.src);
  for (const p of problems) console.warn(`[gatewaycircuit] ${withoutQueries(p)}`);
  const nativeFetch = globalThis.fetch.bind(globalThis);
  g.gatewayCircuit = createGatewayCircuit(
    options,
    {
      fetch: nativeFetch,
      storage: sessionStorageOf(globalThis),
      baseUrl: () => document.baseURI,
      // A monotonic clock: a wall clock set back by an hour must not hold the circuit for an hour.
      now: () => Math.floor(performance.timeOrigin + performance.now()),
      // The pre-ready gate makes the module correct before the wasm runs, so
      // the wasm waits for the page: fetched at low priority once the page
      // has loaded and is idle, unless data-load="eager".
      start:
        options.wasmUrl && data.load !== "eager"
          ? (attributes) => afterLoad().then(() => loadEngine(options.wasmUrl!, attributes, nativeFetch, "low"))
          : undefined,
    },
    data,
  );
  // A page restored by Back/Forward keeps its memory: the stored state is read again.
  addEventListener("pageshow", (e) => {
    if (e.persisted) (g.gatewayCircuit as unknown as Record<symbol, () => void>)[RELOAD]?.();
  });
}

/** Resolves once the page has loaded and the main thread is idle (at most 1 s after load). */
function afterLoad(): Promise<void> {
  const idle = (resolve: () => void) => {
    const ric = (globalThis as { requestIdleCallback?: (f: () => void, o: { timeout: number }) => void }).requestIdleCallback;
    if (ric) ric(resolve, { timeout: 1000 });
    else setTimeout(resolve, 0);
  };
  return new Promise((resolve) => {
    if (document.readyState === "complete") idle(resolve);
    else addEventListener("load", () => idle(resolve), { once: true });
  });
}
