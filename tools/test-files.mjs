// Runs node --test on each file (or directory) given, one after another, as
// `node --test FLAGS FILE`; its TAP goes to stdout and to
// build/tap/RUN@FILE.tap (make test's table reads the duration and the
// counts from there). FILE::PATTERN runs only that file's tests whose names
// match PATTERN (--test-name-pattern). Every file runs; exits 1 when any
// failed.
//
//   node tools/test-files.mjs RUN [--node-flag...] FILE[::PATTERN]...

import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";

const [run, ...args] = process.argv.slice(2);
const flags = args.filter((a) => a.startsWith("--"));
const files = args.filter((a) => !a.startsWith("--"));
mkdirSync("build/tap", { recursive: true });
const failed = [];
for (const item of files) {
  const [file, pattern] = item.split("::");
  const tap = `build/tap/${run}@${file.replace(/\/$/, "").replace(/\//g, "~")}.tap`;
  const r = spawnSync(
    process.execPath,
    ["--test", "--test-reporter=tap", "--test-reporter-destination=stdout", "--test-reporter=tap", `--test-reporter-destination=${tap}`, ...flags, ...(pattern ? [`--test-name-pattern=${pattern}`] : []), file],
    { stdio: "inherit" },
  );
  if (r.status !== 0) failed.push(file);
}
if (failed.length) console.error(`${run}: failed: ${failed.join(" ")}`);
process.exit(failed.length ? 1 : 0);
