// The shim stays thin: Go decides, the shim carries out. Its source (js/src
// without tests and generated files) has a budget of code lines — comments
// and blank lines do not count, so explaining a line never costs budget — and
// a restatement or a second copy of a rule shows up here as a number. Lower
// BUDGET when the shim shrinks; raising it is a decision to write down in the
// commit message (the history lives in git, not here).

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";

/** The code lines js/src may have. The goal is 2,100. */
const BUDGET = 2471;

/** The lines of `text` that hold code: not blank, not only a comment (line or block). */
export function codeLines(text: string): number {
  let n = 0;
  let inBlock = false;
  for (const raw of text.split("\n")) {
    let line = raw.trim();
    if (inBlock) {
      const end = line.indexOf("*/");
      if (end < 0) continue;
      inBlock = false;
      line = line.slice(end + 2).trim();
    }
    if (line.startsWith("/*")) {
      const end = line.indexOf("*/");
      if (end < 0) {
        inBlock = true;
        continue;
      }
      line = line.slice(end + 2).trim();
    }
    if (line !== "" && !line.startsWith("//")) n++;
  }
  return n;
}

test("code lines are counted without comments and blank lines", () => {
  assert.equal(codeLines("// a\n\n/** doc\n * more\n */\nconst a = 1; // why\n/* one */ b();\n"), 2);
});

test("js/src stays within its code-line budget", () => {
  const files = readdirSync("js/src").filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.endsWith(".gen.ts"));
  const count = (f: string) => codeLines(readFileSync(`js/src/${f}`, "utf8"));
  const lines = files.reduce((n, f) => n + count(f), 0);
  const largest = files.sort((a, b) => count(b) - count(a)).slice(0, 5).map((f) => `${f} ${count(f)}`);
  assert.ok(lines <= BUDGET, `js/src has ${lines} code lines, over its budget of ${BUDGET} (largest: ${largest.join(", ")})`);
});
