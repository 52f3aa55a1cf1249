// Builds the npm package (js/dist/) from js/src and the script-tag build in
// ../dist (run `make build` first). `make js-package` runs it.
//
//   dist/index.js    browser ESM entry: the script tag's window.gatewayCircuit
//   dist/server.js   react-server / node / default: a pass-through, never touches window
//   dist/head.js     the inline <head> marker script, the tag's file's text (to render
//                    inline) and the hashed asset names
//   dist/static/     the four files of the script-tag build, content-hashed
//                    (named by ../dist/manifest.json: tools/pack-dist.mjs hashes
//                    them, not again here), each with its .br and .gz beside it:
//                    gateway-circuit.<hash>.js, gateway-circuit-facade.<hash>.js,
//                    gateway-circuit-engine.<hash>.js, gateway-circuit.<hash>.wasm
//   dist/docs/       the documentation, for readers of the tarball (from ../docs/):
//                    api.md (the API, options and policies), nextjs.md, policies.md,
//                    contract.md, reliability.md, gateway.md, ledger.md
//   dist/types/      declarations (tsc)
//   dist/LICENSE     the project's licence; dist/LICENSE-go is Go's, for the Go runtime
//                    compiled into the wasm and the wasm_exec.js bundled into the script

import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const out = join(here, "dist");
const built = (f) => join(root, "dist", f);

const manifest = JSON.parse(readFileSync(built("manifest.json"), "utf8"));
const assets = { script: manifest["gateway-circuit.js"], wasm: manifest["gateway-circuit.wasm"] };
// The tag's file loads the facade's file beside itself, and that the engine's file, by these hashed names.
const facadeFile = manifest["gateway-circuit-facade.js"];
const engineFile = manifest["gateway-circuit-engine.js"];
if (!assets.script || !assets.wasm || !facadeFile || !engineFile) {
  throw new Error(`dist/manifest.json names no hashed gateway-circuit.js/-facade.js/-engine.js/.wasm: ${JSON.stringify(manifest)}`);
}

// The one list of the files an app serves: the copier copies dist/static/ as it is.
const files = [assets.script, facadeFile, engineFile, assets.wasm];
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "static"), { recursive: true });
for (const f of files) for (const ext of ["", ".br", ".gz"]) copyFileSync(built(f + ext), join(out, "static", f + ext));

// The docs a tarball user reads offline, from ../docs/; links between them
// are made relative.
mkdirSync(join(out, "docs"), { recursive: true });
const relink = (md) => md.replace(/\]\((?:\.\.\/)?docs\/([a-z-]+\.md)/g, "]($1");
for (const doc of ["api.md", "nextjs.md", "policies.md", "contract.md", "reliability.md", "gateway.md", "ledger.md"]) {
  writeFileSync(join(out, "docs", doc), relink(readFileSync(join(root, "docs", doc), "utf8")));
}

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
// The tag's file as it is served, to render inline: the same bytes, not a second build.
const standInText = readFileSync(built(assets.script), "utf8");
if (/<\/script|<!--/i.test(standInText)) throw new Error(`${assets.script} cannot be inlined: it holds </script or <!--`);

await build({ ...common, entryPoints: [join(here, "src/index.ts")], platform: "browser", outfile: join(out, "index.js") });
await build({ ...common, entryPoints: [join(here, "src/server.ts")], platform: "neutral", outfile: join(out, "server.js") });
await build({
  ...common,
  entryPoints: [join(here, "src/head.ts")],
  platform: "neutral",
  outfile: join(out, "head.js"),
  define: { GATEWAY_CIRCUIT_MARKER: JSON.stringify(markerText), GATEWAY_CIRCUIT_ASSETS: JSON.stringify(assets), GATEWAY_CIRCUIT_STAND_IN: JSON.stringify(standInText) },
});

execFileSync(join(root, "node_modules/.bin/tsc"), ["-p", join(here, "tsconfig.package.json")], { stdio: "inherit" });
// The ambient window.gatewayCircuit declaration, next to the types it imports.
copyFileSync(join(here, "gateway-circuit.d.ts"), join(out, "global.d.ts"));

copyFileSync(join(root, "LICENSE"), join(out, "LICENSE"));
const goroot = execFileSync(process.env.GO ?? "go", ["env", "GOROOT"], { encoding: "utf8" }).trim();
copyFileSync(join(goroot, "LICENSE"), join(out, "LICENSE-go"));

console.log(`js/dist/static: ${files.join(", ")}, each with .br and .gz (marker ${markerText.length} bytes)`);
