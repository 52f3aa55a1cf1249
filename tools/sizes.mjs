// Sizes of a built file as pack-dist writes and make bench reports them:
// raw, gzip level 9, brotli quality 11 with the size hint. Run on its own it
// prints the wasm's brotli size beside the floor program's and their ratio:
//
//   node tools/sizes.mjs [module.wasm [floor.wasm]]
//
// (defaults dist/gateway-circuit.wasm and build/bench/floor.wasm, which
// `make build` and `make build/bench/manifest.json` write).

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

/** The bytes as shipped precompressed: brotli quality 11 with the size hint. */
export const brotli = (b) => brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: b.length } });
/** The bytes as shipped precompressed: gzip level 9. */
export const gzip = (b) => gzipSync(b, { level: 9 });

export function sizes(path) {
  const b = readFileSync(path);
  return { raw: b.length, gzip: gzip(b).length, brotli: brotli(b).length };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [module = "dist/gateway-circuit.wasm", floor = "build/bench/floor.wasm"] = process.argv.slice(2);
  const m = sizes(module);
  const f = sizes(floor);
  console.log(`module ${m.raw} raw, ${m.brotli} B br; floor ${f.raw} raw, ${f.brotli} B br; ratio ${(m.brotli / f.brotli).toFixed(4)}`);
}
