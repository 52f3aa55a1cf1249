// The classic <script> entry: dist/gateway-circuit.js. It blocks the first
// paint, so it holds only what must run before app code: it defines
// window.gatewayCircuit (early.ts stands in for the facade) and adds the
// facade's file (facade-file.ts) beside itself as an async script, fetched at
// once and at high priority.
//
//   <script src="/gateway-circuit.js" data-wasm="/gateway-circuit.wasm" data-scope="/api/"></script>
//
// Rendered inline (no round trip before the first paint; the head entry's
// standInScript is this file's text), it has no src: data-src names the
// folder that holds the other files.
//
//   <script nonce="…" data-src="/_gc/" data-wasm="/_gc/gateway-circuit.<hash>.wasm" data-scope="/api/">…</script>

import type { DataAttributes } from "./config.js";
import { type Early, FACADE_WAIT_MS, createEarly } from "./early.js";
import { sessionStorageOf } from "./storage.js";
import type { GatewayCircuit } from "./types.js";

/** The facade's file name (content-hashed), set at build time: it sits beside this file. */
declare const GATEWAY_CIRCUIT_FACADE: string;

/** What this file leaves for the facade's file, under Symbol.for("gatewaycircuit.tag"). */
export interface Tag {
  data: DataAttributes;
  /** The tag's src, or its data-src resolved against the page when inline (URLs in data-* are resolved against the page; the other files sit beside this one). */
  src: string;
  early: Early;
  nativeFetch: typeof fetch;
  /** Adds an async script for `url` (its fetchpriority `priority`) with the tag's nonce, for a strict CSP. */
  addScript: (url: string, priority: string) => HTMLScriptElement;
}

/**
 * Tag.addScript. Its URLs go through a Trusted Types policy named "gatewaycircuit" (a page that enforces Trusted
 * Types must allow that name in its CSP's trusted-types directive). Throws when the page refuses the policy.
 */
function scriptAdder(nonce: string): Tag["addScript"] {
  const tt = (globalThis as { trustedTypes?: { createPolicy(name: string, rules: { createScriptURL(u: string): string }): { createScriptURL(u: string): string } } }).trustedTypes;
  const policy = tt?.createPolicy("gatewaycircuit", { createScriptURL: (u) => u });
  return (url, priority) => {
    const s = document.createElement("script");
    s.src = policy ? policy.createScriptURL(url) : url;
    s.async = true;
    s.setAttribute("fetchpriority", priority);
    if (nonce) s.nonce = nonce;
    (document.head ?? document.documentElement).append(s);
    return s;
  };
}

const g = globalThis as unknown as { gatewayCircuit?: GatewayCircuit } & Record<symbol, unknown>;
const FIRST = Symbol.for("gatewaycircuit.attributes");
const script = document.currentScript as HTMLScriptElement | null;
const data = { ...(script?.dataset ?? {}) };
if (g.gatewayCircuit) {
  // One circuit per page: a second tag changes nothing, and says so when it asked for other settings.
  if (g[FIRST] !== undefined && g[FIRST] !== JSON.stringify(data)) {
    console.warn("[gatewaycircuit] a second script tag with other data-* settings was ignored");
  }
} else {
  g[FIRST] = JSON.stringify(data);
  const nativeFetch = globalThis.fetch.bind(globalThis);
  const early = createEarly(nativeFetch, sessionStorageOf(globalThis), data, document.baseURI);
  g.gatewayCircuit = early.api;
  let url = GATEWAY_CIRCUIT_FACADE;
  try {
    const src = script?.src || new URL(data.src ?? "", document.baseURI).href;
    url = new URL(url, src).href;
    const tag: Tag = { data, src, early, nativeFetch, addScript: scriptAdder(script?.nonce ?? "") };
    g[Symbol.for("gatewaycircuit.tag")] = tag;
    const s = tag.addScript(url, "high");
    s.onerror = () => early.fail(`${url} did not load`);
    s.onload = () => early.fail(`${url} is not the facade's file`); // unless it ran and took over
    setTimeout(() => early.fail(`${url} did not run within ${FACADE_WAIT_MS} ms`), FACADE_WAIT_MS);
  } catch (e) {
    // Trusted Types refused the policy or the URL, data-src is not a URL, or the page has no document to add to.
    early.fail(`${url} could not be added: ${(e as Error).message}`);
  }
}
