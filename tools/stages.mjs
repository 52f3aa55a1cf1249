// make test's driver: runs each stage (a make target) to its end, one after
// another, then prints where the time went — each stage's wall time, the ten
// slowest test files (from the TAP every node --test run also writes to
// build/tap/), and one closing line that counts the node tests
// ("tests: N passed, N failed"). A failed stage does not stop the others:
// one CI run shows every failure. Exits 1 when any stage failed.
//
//   node tools/stages.mjs STAGE...

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";

const stages = process.argv.slice(2);
const TAP = "build/tap";
rmSync(TAP, { recursive: true, force: true });
mkdirSync(TAP, { recursive: true });

const results = [];
const started = Date.now();
for (const stage of stages) {
  const t0 = Date.now();
  console.log(`\n=== stage ${stage}`);
  const r = spawnSync(process.env.MAKE ?? "make", ["--no-print-directory", stage], { stdio: "inherit" });
  const code = r.status ?? 1;
  results.push({ stage, secs: (Date.now() - t0) / 1000, code });
  console.log(`=== stage ${stage}: ${code === 0 ? "ok" : `FAILED (exit ${code})`} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

/** Each test file's run (build/tap/RUN@FILE.tap, tools/test-files.mjs): its duration and counts. */
function readTap() {
  const files = [];
  let pass = 0;
  let fail = 0;
  for (const name of existsSync(TAP) ? readdirSync(TAP) : []) {
    const text = readFileSync(`${TAP}/${name}`, "utf8");
    const [run, file] = name.replace(/\.tap$/, "").replace(/~/g, "/").split("@");
    const count = (what) => Number(new RegExp(`^# ${what} (\\d+)$`, "m").exec(text)?.[1] ?? 0);
    pass += count("pass");
    fail += count("fail");
    const ms = /^# duration_ms ([\d.]+)$/m.exec(text);
    if (ms) files.push({ file, run, secs: Number(ms[1]) / 1000 });
  }
  return { files, pass, fail };
}

const { files, pass, fail } = readTap();
const pad = (s, n) => String(s).padEnd(n);
const out = ["", `make test: where the time went (wall ${((Date.now() - started) / 60000).toFixed(1)} min)`, "", "| stage | wall time | result |", "|---|---:|---|"];
for (const r of results) out.push(`| ${pad(r.stage, 16)} | ${r.secs.toFixed(0).padStart(5)} s | ${r.code === 0 ? "ok" : `FAILED (exit ${r.code})`} |`);
out.push("", "| slowest test files | run | wall time |", "|---|---|---:|");
for (const f of files.sort((a, b) => b.secs - a.secs).slice(0, 10)) out.push(`| ${f.file} | ${f.run} | ${f.secs.toFixed(0).padStart(5)} s |`);
out.push("");
console.log(out.join("\n"));
const failed = results.filter((r) => r.code !== 0).map((r) => r.stage);
if (failed.length) console.log(`FAILED stages: ${failed.join(", ")}`);
console.log(`tests: ${pass} passed, ${fail} failed`);
process.exit(failed.length ? 1 : 0);
