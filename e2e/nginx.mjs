// Real nginx (Debian's) as the API gateway in the e2e tests. Each call to
// startNginx writes a generated config into its own temp dir and runs
//
//   nginx -p DIR -c DIR/nginx.conf -e DIR/error.log -g 'daemon off;'
//
// on 127.0.0.1 (a free port), with the access log, the pid file and every temp
// path inside DIR. The access log is the ground truth: count(prefix) says how
// many requests reached the gateway.
//
// Scenarios, for the requests under apiPrefix (default "/api/"):
//
//   proxy     pass through to upstreamUrl (healthy)
//   dead      the upstream is down (nothing listens): nginx's own HTML 502
//   hang      the upstream accepts and never answers: nginx's HTML 504 after
//             proxy_read_timeout (readTimeoutS, default 1 s)
//   limit503  limit_req in front of the upstream, as configured by default:
//             the excess of a burst gets 503, without Retry-After
//   limit429  the same with limit_req_status 429 (no Retry-After; with
//             retryAfterS, the README's map adds Retry-After to the 429s)
//   flaky     a healthy upstream that answers a seeded 10% (failRate) of the
//             requests with 500
//
// With deadPrefix (e.g. "/api/b/"), the requests under it go to a dead
// upstream (nginx's 502) whatever the scenario: one service down behind a
// gateway whose other services are up.
//
// Everything else (the pages, the module's .js and .wasm) goes to upstreamUrl
// when given, so a page served through nginx is same-origin with its API
// (which is upstreamUrl too, or apiUrl when the pages come from elsewhere).
// Without upstreamUrl, the API scenarios that need a live upstream use the
// tiny one in e2e/upstream.mjs, which answers 200 JSON.

import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { freePort } from "./harness.mjs";
import { startUpstream } from "./upstream.mjs";

export const NGINX = process.env.NGINX ?? "/usr/sbin/nginx";

export const SCENARIOS = ["proxy", "dead", "hang", "limit503", "limit429", "flaky"];

/** Where the harness's own probe lives; never counted. */
const CONTROL = "/__nginx/";

/**
 * Starts nginx for one scenario. Returns {url, dir, scenario, count, entries,
 * setScenario, stop}.
 * @param {{
 *   scenario: string,
 *   upstreamUrl?: string,        // e.g. the demo gateway, "http://127.0.0.1:8080"
 *   apiUrl?: string,             // where a live API scenario sends apiPrefix, when not upstreamUrl
 *   apiPrefix?: string,          // "/api/"
 *   readTimeoutS?: number,       // hang: proxy_read_timeout, 1
 *   limit?: {rate?: string, burst?: number}, // limit*: "10r/s", burst 5 (nodelay)
 *   retryAfterS?: number,        // limit429: Retry-After on the 429s (the README's nginx block)
 *   failRate?: number, seed?: number,        // flaky: 0.1, 1
 *   deadPrefix?: string,         // a prefix under apiPrefix whose upstream is down (502), in every scenario
 *   nginx?: string,              // the binary, $NGINX or /usr/sbin/nginx
 * }} options
 */
export async function startNginx(options) {
  const binary = options.nginx ?? NGINX;
  if (!existsSync(binary)) {
    throw new Error(`${binary} is missing: run 'make nginx' (Debian's nginx) or set NGINX`);
  }
  const dir = mkdtempSync(join(tmpdir(), "gatewaycircuit-nginx-"));
  chmodSync(dir, 0o755); // as root, nginx's workers run as nobody and must reach DIR/tmp
  mkdirSync(join(dir, "tmp"));
  const port = await freePort();
  const upstreams = [];
  let proc = null;
  let current = null;

  const configure = async (o) => {
    const scenario = o.scenario;
    if (!SCENARIOS.includes(scenario)) throw new Error(`nginx: unknown scenario ${scenario} (${SCENARIOS.join(", ")})`);
    const api = await apiUpstream(o, upstreams);
    const dead = o.deadPrefix ? await apiUpstream({ scenario: "dead" }, upstreams) : undefined;
    writeFileSync(join(dir, "nginx.conf"), config({ ...o, dir, port, api, dead }));
    current = scenario;
  };

  await configure(options);
  proc = spawn(binary, ["-p", dir, "-c", join(dir, "nginx.conf"), "-e", join(dir, "error.log"), "-g", "daemon off;"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  proc.stderr.on("data", (d) => (stderr += d));
  const exited = once(proc, "exit").then(([code, signal]) => ({ code, signal }));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(async () => (await scenarioOf(url)) === current, exited, () => stderr + readIfAny(join(dir, "error.log")));
  } catch (e) {
    proc.kill("SIGKILL");
    await cleanup(dir, upstreams);
    throw e;
  }

  const log = join(dir, "access.log");
  /** Every request nginx logged (the harness's own probes excepted), oldest first. */
  const entries = async () => {
    await settle(log);
    return readIfAny(log)
      .split("\n")
      .map(parseLine)
      .filter((e) => e && !e.uri.startsWith(CONTROL));
  };
  return {
    url,
    dir,
    get scenario() {
      return current;
    },
    entries,
    /** Requests nginx logged whose URI starts with prefix, optionally only those answered with status. */
    async count(prefix = "/", status) {
      return (await entries()).filter((e) => e.uri.startsWith(prefix) && (status === undefined || e.status === status)).length;
    },
    /** Switches the scenario in place (nginx -s reload semantics: SIGHUP), same port, same log. */
    async setScenario(scenario, more = {}) {
      await configure({ ...options, ...more, scenario });
      proc.kill("SIGHUP");
      await waitFor(async () => (await scenarioOf(url)) === scenario, exited, () => stderr + readIfAny(join(dir, "error.log")));
    },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill("SIGTERM");
        await exited;
      }
      await cleanup(dir, upstreams);
    },
  };
}

/** The proxy_pass target of the API location for a scenario. */
async function apiUpstream(o, upstreams) {
  const started = async (u) => {
    upstreams.push(u);
    return u.url;
  };
  switch (o.scenario) {
    case "dead":
      return `http://127.0.0.1:${await freePort()}`; // nothing listens there
    case "hang":
      return started(await startUpstream({ mode: "hang" }));
    case "flaky":
      return started(await startUpstream({ mode: "flaky", failRate: o.failRate, seed: o.seed, forwardTo: o.upstreamUrl }));
    default: // proxy, limit503, limit429
      return o.apiUrl ?? o.upstreamUrl ?? started(await startUpstream({ mode: "ok" }));
  }
}

/** The generated nginx.conf. */
export function config({ scenario, dir, port, api, upstreamUrl, apiPrefix = "/api/", readTimeoutS = 1, limit = {}, retryAfterS, deadPrefix, dead }) {
  const rate = limit.rate ?? "10r/s";
  const burst = limit.burst ?? 5;
  const limited = scenario === "limit503" || scenario === "limit429";
  const tmp = (name) => `${name}_temp_path ${join(dir, "tmp", name)};`;
  return `# generated by e2e/nginx.mjs for the "${scenario}" scenario
worker_processes 1;
pid ${join(dir, "nginx.pid")};
error_log ${join(dir, "error.log")} warn;
${process.getuid?.() === 0 ? "user nobody nogroup;" : ""}
events { worker_connections 512; }
http {
  log_format counts '$msec $status "$request_method $request_uri" $upstream_status';
  access_log ${join(dir, "access.log")} counts;
  ${tmp("client_body")}
  ${tmp("proxy")}
  ${tmp("fastcgi")}
  ${tmp("uwsgi")}
  ${tmp("scgi")}
  map $http_upgrade $connection_upgrade { default upgrade; "" ""; }
  ${limited ? `limit_req_zone $binary_remote_addr zone=api:1m rate=${rate};` : ""}
  ${retryAfterS ? `map $status $retry_after { 429 ${retryAfterS}; default ""; }` : ""}
  server {
    listen 127.0.0.1:${port};
    server_name localhost;
    proxy_http_version 1.1;
    # keep-alive to the upstreams, and WebSocket upgrades through (next dev's HMR socket)
    proxy_set_header Upgrade $http_upgrade;
    proxy_set_header Connection $connection_upgrade;
    proxy_set_header Host $http_host;

    location = ${CONTROL}scenario {
      access_log off;
      default_type text/plain;
      return 200 "${scenario}";
    }
    location ${apiPrefix} {
      ${limited ? `limit_req zone=api burst=${burst} nodelay;` : ""}
      ${scenario === "limit429" ? "limit_req_status 429;" : ""}
      ${scenario === "limit429" && retryAfterS ? "add_header Retry-After $retry_after always;" : ""}
      ${scenario === "hang" ? `proxy_read_timeout ${readTimeoutS}s;` : ""}
      proxy_pass ${api};
    }
    ${deadPrefix ? `location ${deadPrefix} {\n      proxy_pass ${dead};\n    }` : ""}
    location / {
      ${upstreamUrl ? `proxy_pass ${upstreamUrl};` : `default_type text/plain;\n      return 200 "nginx harness: no upstreamUrl\\n";`}
    }
  }
}
`;
}

const LINE = /^(\d+\.\d+) (\d{3}) "(\S+) (\S+)" (\S+)$/;

/** One access-log line: {ms, status, method, uri, upstreamStatus} (upstreamStatus "-" when nginx answered itself). */
function parseLine(line) {
  const m = LINE.exec(line);
  if (!m) return null;
  return { ms: Math.round(Number(m[1]) * 1000), status: Number(m[2]), method: m[3], uri: m[4], upstreamStatus: m[5] };
}

async function scenarioOf(url) {
  try {
    const res = await fetch(`${url}${CONTROL}scenario`);
    return res.ok ? await res.text() : null;
  } catch {
    return null;
  }
}

/** Polls check until it holds; fails with the process's words if it exits first, or after 10 s. */
async function waitFor(check, exited, words) {
  let done = null;
  exited.then((r) => (done = r));
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (done) throw new Error(`nginx exited (${done.code ?? done.signal}): ${words()}`);
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`nginx did not come up in 10 s: ${words()}`);
}

/** nginx writes a request's log line after its answer is sent: wait until the log stops growing. */
async function settle(file) {
  let last = -1;
  for (let i = 0; i < 40; i++) {
    const size = readIfAny(file).length;
    if (size === last) return;
    last = size;
    await new Promise((r) => setTimeout(r, 25));
  }
}

function readIfAny(file) {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

async function cleanup(dir, upstreams) {
  for (const u of upstreams.splice(0)) await u.stop();
  rmSync(dir, { recursive: true, force: true });
}
