// The facade's file (script.ts adds it). It builds the facade and the
// pre-ready gate from the tag's data-* attributes, takes over
// window.gatewayCircuit from the stand-in (early.ts) with the calls it sent,
// and loads the engine's file (engine-file.ts) and the wasm. The gate makes
// the module correct before the wasm runs, so those wait until the page has
// loaded and is idle, at low priority (data-load="eager": at once), unless a
// request waits for Go (the gate holds it): then at once.

import { createCircuit, withoutQueries } from "./circuit.js";
import { readOptions } from "./config.js";
import type { EngineFile } from "./engine-file.js";
import type { Tag } from "./script.js";
import { RELOAD, storedStateChanged, tellFrames } from "./frames.js";
import { COOLDOWN_KEY, STORAGE_KEY } from "./policy.gen.js";
import { sessionStorageOf } from "./storage.js";

/** The engine's file name (content-hashed), set at build time: it sits beside this file. */
declare const GATEWAY_CIRCUIT_ENGINE: string;

const g = globalThis as unknown as Record<symbol, unknown>;
const tag = g[Symbol.for("gatewaycircuit.tag")] as Tag | undefined;
// Run once, and only after the tag's file (a second copy of this file does nothing).
if (tag && !g[Symbol.for("gatewaycircuit.facade")] && tag.early.api.status === "loading") {
  g[Symbol.for("gatewaycircuit.facade")] = true;
  const data = tag.data;
  const { options, problems } = readOptions(data, document.baseURI, tag.src);
  for (const p of problems) console.warn(`[gatewaycircuit] ${withoutQueries(p)}`);
  const nativeFetch = tag.nativeFetch;
  const wasmUrl = options.wasmUrl;
  const engineUrl = new URL(GATEWAY_CIRCUIT_ENGINE, tag.src).href;
  const eager = data.load === "eager";
  // Settles with the priority to load at: "auto" when a request waits for Go (hurry), "low" after the page.
  let hurry = () => {};
  const hurried = new Promise<string>((resolve) => (hurry = () => resolve("auto")));
  const storage = sessionStorageOf(globalThis);
  // Read once: the clock runs on every request, and each read of a page's global is a call into the browser.
  const clock = performance;
  const timeOrigin = clock.timeOrigin;
  const facade = createCircuit(
    options,
    {
      fetch: nativeFetch,
      storage,
      baseUrl: () => document.baseURI,
      // A monotonic clock: a wall clock set back by an hour must not hold the circuit for an hour.
      now: () => Math.floor(timeOrigin + clock.now()),
      changed: () => tellFrames(window),
      reload: (clock.getEntriesByType?.("navigation")[0] as PerformanceNavigationTiming | undefined)?.type === "reload",
      hurry: () => hurry(),
      start: (attributes) => {
        if (!wasmUrl) return Promise.reject(new Error("no wasm configured"));
        return (eager ? Promise.resolve("auto") : Promise.race([afterLoad().then(() => "low"), hurried])).then((priority) => {
          // Both downloads at once, and the wasm compiles (streaming) while the engine's file loads.
          const compiled = nativeFetch(wasmUrl, { credentials: "same-origin", priority } as RequestInit).then((res) => {
            if (!res.ok) throw new Error(`${wasmUrl}: HTTP ${res.status}`);
            return (res.headers.get("content-type") ?? "").startsWith("application/wasm")
              ? WebAssembly.compileStreaming(res)
              : res.arrayBuffer().then((b) => WebAssembly.compile(b));
          });
          compiled.catch(() => {}); // the engine's file reports it (or its own failure first)
          return loadEngineFile(engineUrl, priority, tag).then((f) => f.start(compiled, attributes));
        });
      },
    },
    data,
  );
  facade.takeOver(tag.early.adopt(facade)!);
  // Other frames' instances call it when they changed the state (frames.ts); not part of the public API.
  Object.defineProperty(tag.early.api, RELOAD, { value: facade.reload });
  // A page restored by Back/Forward keeps its memory: the stored state is read again.
  addEventListener("pageshow", (e) => {
    if (e.persisted) facade.reload();
  });
  // Another frame of the tab wrote the circuit or the pauses (frames.ts).
  addEventListener("storage", (e) => {
    if (storedStateChanged(e, storage, [STORAGE_KEY, COOLDOWN_KEY])) facade.reload();
  });
}

/** Adds the engine's file as an async script (tag.addScript) and resolves once it ran. */
function loadEngineFile(url: string, priority: string, tag: Tag): Promise<EngineFile> {
  return new Promise((resolve, reject) => {
    const s = tag.addScript(url, priority);
    s.onload = () => {
      const f = g[Symbol.for("gatewaycircuit.engine")] as EngineFile | undefined;
      if (f) resolve(f);
      else reject(new Error(`${url} is not the engine's file`));
    };
    s.onerror = () => reject(new Error(`${url} did not load`));
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
