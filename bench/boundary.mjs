// Per-boundary costs of the module, cold and warm (bench/web/boundary.html).
// Run after make bench:  node bench/boundary.mjs
import { chromium } from "playwright-core";
import { readFileSync, writeFileSync } from "node:fs";
import { CHROMIUM_ARGS, startGateway } from "../e2e/harness.mjs";
const m = JSON.parse(readFileSync("dist/manifest.json", "utf8"));
const b = JSON.parse(readFileSync("build/bench/manifest.json", "utf8"));
writeFileSync("build/bench/boundary.html", readFileSync("bench/web/boundary.html", "utf8").replace("__WASM_EXEC__", b["wasm_exec.js"]));
const gw = await startGateway();
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: [...CHROMIUM_ARGS] });
const page = await (await browser.newContext()).newPage();
await page.goto(`${gw.url}/bench/boundary.html`);
console.log(await page.evaluate((w) => window.run(w), m["gateway-circuit.wasm"]));
await browser.close(); await gw.stop();
