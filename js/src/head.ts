// What a server renders into <head> (the `@gatewaycircuit/browser/head`
// entry). Safe to import anywhere; it touches no browser global. js/build.mjs
// fills the three constants in at package build time (esbuild `define`);
// unbuilt (in unit tests) they are empty.

export { ARMED_ATTRIBUTE } from "./marker.js";

declare const GATEWAY_CIRCUIT_MARKER: string;
declare const GATEWAY_CIRCUIT_ASSETS: { script: string; wasm: string };
declare const GATEWAY_CIRCUIT_STAND_IN: string;

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

/**
 * The text of the tag's file (`assets.script`, byte for byte), to render as
 * an inline `<script>` in `<head>`, before the app's scripts, instead of the
 * external tag: the first paint then waits for no request. An inline tag has
 * no src, so it carries `data-src`, the URL of the folder that holds the
 * other files (ending in `/`), and `data-wasm`; render it with your CSP nonce
 * (it gives the nonce to the files it adds):
 *
 *   <script nonce="…" data-src="/_gc/" data-wasm="/_gc/<assets.wasm>" data-scope="/api/">standInScript</script>
 *
 * The other data-* attributes are the external tag's. It holds no `</script`.
 */
export const standInScript: string = typeof GATEWAY_CIRCUIT_STAND_IN === "string" ? GATEWAY_CIRCUIT_STAND_IN : "";
