#!/usr/bin/env node
// gateway-circuit-assets [--stable] <dir>: copies the script-tag build into <dir>.
//
// By default the content-hashed files (gateway-circuit.<hash>.js and .wasm, the
// names `@gatewaycircuit/browser/head` exports as `assets`), removing older
// hashed copies there, e.g. into a Next.js app's public/_gc before `next build`.
// Serve those with `Cache-Control: immutable`.
//
// --stable writes gateway-circuit.js and gateway-circuit.wasm instead, for a
// hand-written page: <script src="/gateway-circuit.js"> finds the wasm beside
// it without a data-wasm attribute. Serve those with revalidation (no-cache).
// Either way the facade's and the engine's files (gateway-circuit-facade.<hash>.js,
// gateway-circuit-engine.<hash>.js) keep their hashed names: each file loads
// the next beside itself by that name.

import { copyFileSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const stable = args.includes("--stable");
const [dir, ...extra] = args.filter((a) => a !== "--stable");
if (!dir || extra.length > 0 || dir.startsWith("-")) {
  console.error("usage: gateway-circuit-assets [--stable] <dir>");
  process.exit(2);
}
const from = fileURLToPath(new URL("../dist/static/", import.meta.url));
const files = readdirSync(from);
if (files.length === 0) {
  console.error(`gateway-circuit-assets: ${from} is empty; build the package first`);
  process.exit(1);
}
const hashed = /^gateway-circuit\.[0-9a-f]+\.(js|wasm)$/;
const engine = /^gateway-circuit-(facade|engine)\.[0-9a-f]+\.js$/;
const target = (f) => (stable ? f.replace(hashed, "gateway-circuit.$1") : f);
mkdirSync(dir, { recursive: true });
if (!stable) {
  for (const f of readdirSync(dir)) if (hashed.test(f) && !files.includes(f)) rmSync(join(dir, f));
}
for (const f of readdirSync(dir)) if (engine.test(f) && !files.includes(f)) rmSync(join(dir, f));
for (const f of files) copyFileSync(join(from, f), join(dir, target(f)));
console.log(`gateway-circuit-assets: ${files.map(target).join(", ")} -> ${dir}`);
