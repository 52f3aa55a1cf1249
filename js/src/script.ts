// The classic <script> entry: dist/gateway-circuit.js. It defines
// window.gatewayCircuit synchronously, before any app code runs, and holds
// only what must run then: the facade and the pre-ready gate (the stored
// circuit and pauses, honoured from the first byte). The rest — Go's
// wasm_exec.js, the wasm loader, the Go path — is the engine's file
// (engine-file.ts), which this file loads beside itself without blocking
// rendering, together with the wasm.
//
//   <script src="/gateway-circuit.js" data-wasm="/gateway-circuit.wasm" data-scope="/api/"></script>

import { RELOAD, createGatewayCircuit, withoutQueries } from "./circuit.js";
import { type DataAttributes, readOptions } from "./config.js";
import type { EngineFile } from "./engine-file.js";
import { sessionStorageOf } from "./storage.js";
import type { GatewayCircuit } from "./types.js";

declare global {
  interface Window {
    gatewayCircuit: GatewayCircuit;
  }
}

/** The engine's file name (content-hashed), set at build time: it sits beside this file. */
declare const GATEWAY_CIRCUIT_ENGINE: string;

const g = globalThis as unknown as { gatewayCircuit?: GatewayCircuit } & Record<symbol, unknown>;
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
  const wasmUrl = options.wasmUrl;
  const engineUrl = new URL(GATEWAY_CIRCUIT_ENGINE, script?.src || document.baseURI).href;
  const nonce = script?.nonce ?? "";
  // The pre-ready gate makes the module correct before the wasm runs, so
  // the engine waits for the page: its file and the wasm are fetched at low
  // priority once the page has loaded and is idle, unless data-load="eager".
  const eager = data.load === "eager";
  g.gatewayCircuit = createGatewayCircuit(
    options,
    {
      fetch: nativeFetch,
      storage: sessionStorageOf(globalThis),
      baseUrl: () => document.baseURI,
      // A monotonic clock: a wall clock set back by an hour must not hold the circuit for an hour.
      now: () => Math.floor(performance.timeOrigin + performance.now()),
      start: (attributes) => {
        if (!wasmUrl) return Promise.reject(new Error("no wasm configured"));
        return (eager ? Promise.resolve() : afterLoad()).then(() => {
          const priority = eager ? "auto" : "low";
          // Both downloads at once, and the wasm compiles (streaming) while the engine's file loads.
          const compiled = nativeFetch(wasmUrl, { credentials: "same-origin", priority } as RequestInit).then((res) => {
            if (!res.ok) throw new Error(`${wasmUrl}: HTTP ${res.status}`);
            return (res.headers.get("content-type") ?? "").startsWith("application/wasm")
              ? WebAssembly.compileStreaming(res)
              : res.arrayBuffer().then((b) => WebAssembly.compile(b));
          });
          compiled.catch(() => {}); // the engine's file reports it (or its own failure first)
          return loadEngineFile(engineUrl, priority, nonce).then((f) => f.start(compiled, attributes));
        });
      },
    },
    data,
  );
  // A page restored by Back/Forward keeps its memory: the stored state is read again.
  addEventListener("pageshow", (e) => {
    if (e.persisted) (g.gatewayCircuit as unknown as Record<symbol, () => void>)[RELOAD]?.();
  });
}

/** Adds the engine's file as an async script (with this tag's nonce, for a strict CSP) and resolves once it ran. */
function loadEngineFile(url: string, priority: string, nonce: string): Promise<EngineFile> {
  return new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = url;
    s.async = true;
    if (priority !== "auto") s.setAttribute("fetchpriority", priority);
    if (nonce) s.nonce = nonce;
    s.onload = () => {
      const f = g[Symbol.for("gatewaycircuit.engine")] as EngineFile | undefined;
      if (f) resolve(f);
      else reject(new Error(`${url} is not the engine's file`));
    };
    s.onerror = () => reject(new Error(`${url} did not load`));
    (document.head ?? document.documentElement).append(s);
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
