// What a server renders into <head> (the `@gatewaycircuit/browser/head`
// entry): the inline marker script and the content-hashed names of the
// script-tag build. Safe to import anywhere; it touches no browser global.
//
// js/build.mjs fills the two constants in at package build time (esbuild
// `define`); unbuilt (in unit tests) they are empty.

export { ARMED_ATTRIBUTE } from "./marker.js";

declare const GATEWAY_CIRCUIT_MARKER: string;
declare const GATEWAY_CIRCUIT_ASSETS: { script: string; wasm: string };

/**
 * The text of an inline <head> script (no eval, no network, ~1 KB) that sets
 * `data-gateway-circuit="armed"` on <html> when sessionStorage holds an armed
 * circuit. Render it with your CSP nonce, before any stylesheet that depends on it.
 */
export const markArmedScript: string = typeof GATEWAY_CIRCUIT_MARKER === "string" ? GATEWAY_CIRCUIT_MARKER : "";

/**
 * File names (no directory) of the script-tag build under content hashes,
 * e.g. `gateway-circuit.ff7c5094a7af.js` and `gateway-circuit.ef29586f126a.wasm`
 * (different hashes: pass the wasm's name in data-wasm). The files are
 * in the package's `dist/static/`; `gateway-circuit-assets <dir>` copies them.
 * Serve them with `Cache-Control: public, max-age=31536000, immutable` and the
 * wasm as `application/wasm`.
 */
export const assets: Readonly<{ script: string; wasm: string }> =
  typeof GATEWAY_CIRCUIT_ASSETS === "object" ? GATEWAY_CIRCUIT_ASSETS : { script: "", wasm: "" };
