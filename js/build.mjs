// Builds the npm package (js/dist/) from js/src and the script-tag build in
// ../dist (run `make build` first). `make js-package` runs it.
//
//   dist/index.js    browser ESM entry: the script tag's window.gatewayCircuit
//   dist/server.js   react-server / node / default: a pass-through, never touches window
//   dist/head.js     the inline <head> marker script and the hashed asset names
//   dist/static/     gateway-circuit.<hash>.js and .wasm (one hash over both files)
//   dist/types/      declarations (tsc)

import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const out = join(here, "dist");
const built = (f) => join(root, "dist", f);

const script = readFileSync(built("gateway-circuit.js"));
const wasm = readFileSync(built("gateway-circuit.wasm"));
// One hash over both: they are deployed together, and the script's default
// data-wasm (its own URL with .js -> .wasm) then finds the right wasm.
const hash = createHash("sha256").update(script).update(wasm).digest("hex").slice(0, 10);
const assets = { script: `gateway-circuit.${hash}.js`, wasm: `gateway-circuit.${hash}.wasm` };

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "static"), { recursive: true });
copyFileSync(built("gateway-circuit.js"), join(out, "static", assets.script));
copyFileSync(built("gateway-circuit.wasm"), join(out, "static", assets.wasm));

const common = { bundle: true, format: "esm", target: "es2020", logLevel: "warning", legalComments: "none" };
const marker = await build({
  ...common,
  entryPoints: [join(here, "src/marker-inline.ts")],
  format: "iife",
  platform: "browser",
  minify: true,
  write: false,
});
const markerText = marker.outputFiles[0].text.trim();

await build({ ...common, entryPoints: [join(here, "src/index.ts")], platform: "browser", outfile: join(out, "index.js") });
await build({ ...common, entryPoints: [join(here, "src/server.ts")], platform: "neutral", outfile: join(out, "server.js") });
await build({
  ...common,
  entryPoints: [join(here, "src/head.ts")],
  platform: "neutral",
  outfile: join(out, "head.js"),
  define: { GATEWAY_CIRCUIT_MARKER: JSON.stringify(markerText), GATEWAY_CIRCUIT_ASSETS: JSON.stringify(assets) },
});

execFileSync(join(root, "node_modules/.bin/tsc"), ["-p", join(here, "tsconfig.package.json")], { stdio: "inherit" });
// The ambient window.gatewayCircuit declaration, next to the types it imports.
copyFileSync(join(here, "gateway-circuit.d.ts"), join(out, "global.d.ts"));

console.log(`js/dist: ${assets.script}, ${assets.wasm} (marker ${markerText.length} bytes)`);
