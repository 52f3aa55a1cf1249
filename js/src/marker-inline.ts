// The inline <head> script: bundled on its own (js/build.mjs) into the text of
// head.ts's markArmedScript. Nothing in it may throw past the try.

import { DEFAULT_MAX_TTL_MS } from "./config.js";
import { markIfArmed } from "./marker.js";

try {
  markIfArmed(document.documentElement, globalThis, Date.now(), DEFAULT_MAX_TTL_MS);
} catch {
  // a page without storage simply shows no restored overlay
}
