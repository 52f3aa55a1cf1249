// Ships dist/ small: for each file (default gateway-circuit.js, the facade's
// and the engine's files gateway-circuit-facade.js and gateway-circuit-engine.js,
// and gateway-circuit.wasm) it
// writes a content-hashed immutable copy (gateway-circuit.<hash>.wasm),
// precompressed .br (quality 11) and .gz (level 9) files beside every copy,
// and manifest.json mapping the stable names to the hashed ones.
//
//   node tools/pack-dist.mjs [dir [file...]]

import { createHash } from "node:crypto";
import { readFileSync, readdirSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotli, gzip } from "./sizes.mjs";

const dist = process.argv[2] ?? "dist";
const stable = process.argv.length > 3 ? process.argv.slice(3) : ["gateway-circuit.js", "gateway-circuit-facade.js", "gateway-circuit-engine.js", "gateway-circuit.wasm"];

// Old hashed copies would pile up; the manifest names the current ones.
for (const name of stable) {
  const [base, ext] = [name.replace(/\.(js|wasm)$/, ""), name.split(".").pop()];
  const old = new RegExp(`^${base.replace(/[.-]/g, "\\$&")}\\.[0-9a-f]{12}\\.${ext}(\\.br|\\.gz)?$`);
  for (const f of readdirSync(dist)) if (old.test(f)) unlinkSync(join(dist, f));
}

const manifest = {};
for (const name of stable) {
  const bytes = readFileSync(join(dist, name));
  const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 12);
  const hashedName = name.replace(/\.(js|wasm)$/, `.${hash}.$1`);
  manifest[name] = hashedName;
  const br = brotli(bytes);
  const gz = gzip(bytes);
  for (const n of [name, hashedName]) {
    if (n !== name) writeFileSync(join(dist, n), bytes);
    writeFileSync(join(dist, `${n}.br`), br);
    writeFileSync(join(dist, `${n}.gz`), gz);
  }
}
writeFileSync(join(dist, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`dist: ${Object.values(manifest).join(", ")}`);
