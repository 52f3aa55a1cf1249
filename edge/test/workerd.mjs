// Starts the edge in workerd, and the counting upstream, for the edge's
// tests and benchmark. Needs `make edge-build` (build/edge/) first.
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const buildDir = join(root, "build/edge");

// The workerd binary shipped in the npm package (no download at run time).
export function workerdBinary() {
  const require = createRequire(join(root, "package.json"));
  return join(dirname(require.resolve("@cloudflare/workerd-linux-64/package.json")), "bin/workerd");
}

export async function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.on("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

function tcpConnect(host, port) {
  return new Promise((res, rej) => {
    const s = connect(port, host, () => {
      s.end();
      res();
    });
    s.on("error", rej);
  });
}

// waitLine resolves with the first line of child's stdout matching re.
function waitLine(child, re, what) {
  return new Promise((res, rej) => {
    let buf = "";
    const timer = setTimeout(() => rej(new Error(`${what}: no "${re}" in 10 s; got: ${buf}`)), 10_000);
    child.stdout.on("data", (d) => {
      buf += d;
      const m = buf.match(re);
      if (m) {
        clearTimeout(timer);
        res(m);
      }
    });
    child.on("exit", (code) => rej(new Error(`${what} exited with ${code}: ${buf}`)));
  });
}

export async function startUpstream() {
  const child = spawn(join(buildDir, "testupstream"), [], { stdio: ["ignore", "pipe", "inherit"] });
  const m = await waitLine(child, /listening (\S+)/, "testupstream");
  const url = `http://${m[1]}`;
  const post = (path, body) =>
    fetch(url + path, { method: "POST", body: body === undefined ? undefined : JSON.stringify(body) }).then((r) => r.text());
  return {
    url,
    counts: () => fetch(url + "/__up/counts").then((r) => r.json()),
    seen: () => fetch(url + "/__up/seen").then((r) => r.json()),
    mode: (m) => post("/__up/mode", m),
    reset: () => post("/__up/reset"),
    stop: () => child.kill(),
  };
}

// startEdge writes a workerd directory for config (the edge's JSON config)
// and runs workerd on it. storage is kept across restart().
// With waitHttp false, start returns as soon as the port accepts a TCP
// connection, before any request has started the Go instance (for the
// cold-start figure).
export async function startEdge(config, { adminToken = "admin-secret", edgeAddr, passAddr, waitHttp = true } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "edge-workerd-"));
  const storage = join(dir, "storage");
  mkdirSync(storage);
  for (const f of ["worker.mjs", "passthrough.mjs", "wasm_exec.js", "edge.wasm"]) copyFileSync(join(buildDir, f), join(dir, f));
  edgeAddr ??= `127.0.0.1:${await freePort()}`;
  passAddr ??= `127.0.0.1:${await freePort()}`;
  const capnp = readFileSync(join(root, "edge/workerd.capnp.tmpl"), "utf8")
    .replaceAll("@EDGE_ADDR@", edgeAddr)
    .replaceAll("@PASS_ADDR@", passAddr)
    .replaceAll("@STORAGE@", storage);
  writeFileSync(join(dir, "config.capnp"), capnp);
  const edge = {
    url: `http://${edgeAddr}`,
    passUrl: `http://${passAddr}`,
    dir,
    child: null,
    log: "",
    setConfig(c) {
      writeFileSync(join(dir, "config.json"), JSON.stringify({ adminToken, ...c }));
    },
    async start() {
      const child = spawn(workerdBinary(), ["serve", "config.capnp", "--verbose"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
      child.stdout.on("data", (d) => (edge.log += d));
      child.stderr.on("data", (d) => (edge.log += d));
      edge.child = child;
      const deadline = Date.now() + 15_000;
      const [host, port] = edgeAddr.split(":");
      for (;;) {
        try {
          if (waitHttp) await fetch(edge.url + "/__edge/ping");
          else await tcpConnect(host, Number(port));
          return;
        } catch {
          if (child.exitCode !== null) throw new Error("workerd exited: " + edge.log);
          if (Date.now() > deadline) throw new Error("workerd did not listen: " + edge.log);
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    },
    // stop ends workerd with signal (SIGKILL: as a crash would) and waits.
    async stop(signal = "SIGTERM") {
      const child = edge.child;
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      await new Promise((r) => {
        child.once("exit", r);
        child.kill(signal);
      });
    },
    async restart(signal = "SIGTERM") {
      await edge.stop(signal);
      await edge.start();
    },
    async close() {
      await edge.stop("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    },
    admin(path, init = {}) {
      return fetch(edge.url + path, { ...init, headers: { authorization: `Bearer ${adminToken}`, ...(init.headers ?? {}) } });
    },
    async metrics(query) {
      const r = await edge.admin(`/__edge/metrics?${query}`);
      if (r.status !== 200) throw new Error(`metrics ${r.status}: ${await r.text()}`);
      return r.json();
    },
    async setClock(offsetMs) {
      const r = await edge.admin(`/__edge/clock?offsetMs=${offsetMs}`, { method: "POST" });
      if (r.status !== 200) throw new Error(`clock ${r.status}: ${await r.text()}`);
    },
  };
  edge.setConfig(config);
  await edge.start();
  return edge;
}

// edgeWith starts the counting upstream and workerd with config (the
// upstream set to it) before a test file's tests, and stops them after:
// {up, edge} are set once before has run.
export function edgeWith(config, hooks) {
  const s = { up: null, edge: null };
  hooks.before(async () => {
    s.up = await startUpstream();
    s.edge = await startEdge({ upstream: s.up.url, ...config });
  });
  hooks.after(async () => {
    await s.edge?.close();
    s.up?.stop();
  });
  return s;
}

// A test file's edge: the counting upstream and workerd with `services` and the
// test clock, started before its tests and stopped after them. Time moves by
// advance(ms) (an offset on the edge's Date.now, set again after a restart),
// never by sleeping. get(path) returns what the tests read of an answer;
// calls(path) the GETs of path the upstream saw.
export function edgeSuite(services, hooks) {
  const s = Object.assign(edgeWith({ testClock: true, services }, hooks), { offset: 0 });
  return Object.assign(s, {
    async advance(ms) {
      s.offset += ms;
      await s.edge.setClock(s.offset);
    },
    async restart(signal) {
      await s.edge.restart(signal);
      await s.edge.setClock(s.offset);
    },
    async get(path) {
      const r = await fetch(s.edge.url + path);
      const h = (name) => r.headers.get(name);
      return { status: r.status, cache: h("x-edge-cache"), age: h("age"), collectedAt: h("x-edge-collected-at"), retryAfter: h("retry-after"), reason: h("x-edge-reason"), body: await r.text() };
    },
    calls: async (path) => (await s.up.counts())[`GET ${path}`] ?? 0,
  });
}
