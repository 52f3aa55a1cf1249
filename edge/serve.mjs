// make edge: serves the edge in workerd with edge/example.json (or
// --config FILE), its upstream replaced by --upstream. Ctrl-C stops it; the
// Durable Objects' SQLite files live in a temporary directory.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startEdge } from "./test/workerd.mjs";

const { values } = parseArgs({
  options: {
    addr: { type: "string", default: "127.0.0.1:8787" },
    upstream: { type: "string" },
    config: { type: "string", default: new URL("./example.json", import.meta.url).pathname },
  },
});
const config = JSON.parse(readFileSync(values.config, "utf8"));
if (values.upstream) config.upstream = values.upstream;
const { adminToken = "change-me", ...rest } = config;
const edge = await startEdge(rest, { adminToken, edgeAddr: values.addr });
console.log(`edge gateway on ${edge.url} -> ${config.upstream} (workerd dir ${edge.dir}); Ctrl-C to stop`);
edge.child.stdout.pipe(process.stdout);
edge.child.stderr.pipe(process.stderr);
process.on("SIGINT", async () => {
  await edge.close();
  process.exit(0);
});
