// The classic <script> entry: dist/gateway-circuit.js. It blocks the first
// paint, so it holds only what must run before app code: it defines
// window.gatewayCircuit (early.ts stands in for the facade) and adds the
// facade's file (facade-file.ts: the facade, the pre-ready gate, the
// policies) beside itself as an async script, fetched at once and at high
// priority. That file loads the engine's file and the wasm later, when the
// page is idle.
//
//   <script src="/gateway-circuit.js" data-wasm="/gateway-circuit.wasm" data-scope="/api/"></script>

import { type Early, createEarly } from "./early.js";
import { sessionStorageOf } from "./storage.js";
import type { GatewayCircuit } from "./types.js";

declare global {
  interface Window {
    gatewayCircuit: GatewayCircuit;
  }
}

/** The facade's file name (content-hashed), set at build time: it sits beside this file. */
declare const GATEWAY_CIRCUIT_FACADE: string;

/** What this file leaves for the facade's file, under Symbol.for("gatewaycircuit.tag"). */
export interface Tag {
  /** The tag's data-* attributes. */
  data: Record<string, string | undefined>;
  /** The tag's src (URLs in data-* are resolved against the page; the other files sit beside this one). */
  src: string;
  nonce: string;
  early: Early;
  nativeFetch: typeof fetch;
}

const g = globalThis as unknown as { gatewayCircuit?: GatewayCircuit } & Record<symbol, unknown>;
const FIRST = Symbol.for("gatewaycircuit.attributes");
const script = document.currentScript as HTMLScriptElement | null;
const data = { ...(script?.dataset ?? {}) };
if (g.gatewayCircuit) {
  // One circuit per page: a second tag changes nothing, and says so when it asked for other settings.
  if (g[FIRST] !== undefined && g[FIRST] !== JSON.stringify(data)) {
    console.warn("[gatewaycircuit] a second script tag with other data-* settings was ignored: the first tag's settings are in force");
  }
} else {
  g[FIRST] = JSON.stringify(data);
  const nativeFetch = globalThis.fetch.bind(globalThis);
  const early = createEarly(nativeFetch, sessionStorageOf(globalThis), data.ttlMs);
  g.gatewayCircuit = early.api;
  const tag: Tag = { data, src: script?.src || document.baseURI, nonce: script?.nonce ?? "", early, nativeFetch };
  g[Symbol.for("gatewaycircuit.tag")] = tag;
  const s = document.createElement("script");
  const url = new URL(GATEWAY_CIRCUIT_FACADE, tag.src).href;
  s.src = url;
  s.async = true;
  s.setAttribute("fetchpriority", "high");
  if (tag.nonce) s.nonce = tag.nonce;
  s.onerror = () => early.fail(new Error(`${url} did not load`));
  s.onload = () => early.fail(new Error(`${url} is not the facade's file`)); // unless it ran and took over
  (document.head ?? document.documentElement).append(s);
}
