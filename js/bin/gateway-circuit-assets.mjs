#!/usr/bin/env node
// gateway-circuit-assets [--stable] <dir>: copies the script-tag build into <dir>.
//
// The four files an app serves (README.md, "The files"), each with its
// precompressed .br and .gz beside it:
//
//   gateway-circuit.<hash>.js          the tag's file (window.gatewayCircuit until the facade runs)
//   gateway-circuit-facade.<hash>.js   the facade, the pre-ready gate, the policies (loaded at once)
//   gateway-circuit-engine.<hash>.js   the rest of the shim and Go's wasm_exec.js (loaded when idle)
//   gateway-circuit.<hash>.wasm        the Go core
//
// By default under those content-hashed names (the script's and the wasm's are
// what `@gatewaycircuit/browser/head` exports as `assets`), removing older
// hashed copies there, e.g. into a Next.js app's public/_gc before `next build`.
// Serve them with `Cache-Control: immutable`.
//
// --stable names the tag's file and the wasm gateway-circuit.js and
// gateway-circuit.wasm instead, for a hand-written page: <script
// src="/gateway-circuit.js"> finds the wasm beside it without a data-wasm
// attribute. Serve those two with revalidation (no-cache). The facade's and the
// engine's files keep their hashed names either way: each file loads the next
// beside itself by that name.
//
// Every .js starts with `/* eslint-disable */`, so an app's lint config that
// reaches <dir> (create-next-app's lints public/) reports nothing in them. A
// config that would report nothing there anyway warns that the comment is
// unused: for that case, when the flat config in the current directory does
// not name <dir>, the copier prints the line that leaves the folder out.

import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const stable = args.includes("--stable");
const [dir, ...extra] = args.filter((a) => a !== "--stable");
if (!dir || extra.length > 0 || dir.startsWith("-")) {
  console.error("usage: gateway-circuit-assets [--stable] <dir>");
  process.exit(2);
}
const from = fileURLToPath(new URL("../dist/static/", import.meta.url));
const files = readdirSync(from).sort();
if (files.length === 0) {
  console.error(`gateway-circuit-assets: ${from} is empty; build the package first`);
  process.exit(1);
}
const hashed = /^gateway-circuit\.[0-9a-f]+\.(js|wasm)(\.br|\.gz)?$/;
const chained = /^gateway-circuit-(facade|engine)\.[0-9a-f]+\.js(\.br|\.gz)?$/;
const target = (f) => (stable ? f.replace(hashed, "gateway-circuit.$1$2") : f);
mkdirSync(dir, { recursive: true });
for (const f of readdirSync(dir)) {
  if ((chained.test(f) || (!stable && hashed.test(f))) && !files.includes(f)) rmSync(join(dir, f));
}
for (const f of files) copyFileSync(join(from, f), join(dir, target(f)));
const served = files.filter((f) => !/\.(br|gz)$/.test(f)).map(target);
console.log(`gateway-circuit-assets: ${served.join(", ")} (each with .br and .gz) -> ${dir}`);

const eslintConfig = ["eslint.config.mjs", "eslint.config.js", "eslint.config.ts", "eslint.config.cjs"].find((f) => existsSync(f));
const folder = relative(process.cwd(), dir).replaceAll("\\", "/").replace(/\/$/, "");
if (eslintConfig && folder && !folder.startsWith("..") && !readFileSync(eslintConfig, "utf8").includes(folder)) {
  console.log(`gateway-circuit-assets: to keep ESLint out of the copies altogether, add "${folder}/**" to globalIgnores([...]) in ${eslintConfig}`);
}
