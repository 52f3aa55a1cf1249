#!/usr/bin/env node
// gateway-circuit-assets <dir>: copies the content-hashed script-tag build
// (dist/static/gateway-circuit.<hash>.js and .wasm) into <dir>, e.g. a Next.js
// app's public/_gc, removing older hashed copies there. Run it before `next build`.

import { copyFileSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: gateway-circuit-assets <dir>");
  process.exit(2);
}
const from = fileURLToPath(new URL("../dist/static/", import.meta.url));
const files = readdirSync(from);
if (files.length === 0) {
  console.error(`gateway-circuit-assets: ${from} is empty; build the package first`);
  process.exit(1);
}
mkdirSync(dir, { recursive: true });
for (const f of readdirSync(dir)) {
  if (/^gateway-circuit\.[0-9a-f]+\.(js|wasm)$/.test(f) && !files.includes(f)) rmSync(join(dir, f));
}
for (const f of files) copyFileSync(join(from, f), join(dir, f));
console.log(`gateway-circuit-assets: ${files.join(", ")} -> ${dir}`);
