// The F5 storm, seen: per second, the requests that reached the gateway
// against the calls the module answered locally. The first series is the
// gateway's own count (GET /__admin/counts, read with the page's plain fetch:
// outside the module's scope and not through it, so the chart neither counts
// itself nor is guarded); the second is gatewayCircuit.metrics().answeredLocally.
// metrics() start at 0 on every page load, so the series are kept in
// sessionStorage: like the circuit, the history survives F5.
//
// The figure carries its data for tests and tools: data-series (the JSON of
// both series, [Unix second, count] pairs), data-reached and data-local (their
// totals over the kept window), data-samples (gateway reads on this page).

import type { GatewayCircuit } from "../../js/src/types.js";

type Series = [second: number, count: number][];
interface History {
  reached: Series; // the gateway's apiPerSecond, as last read
  local: Series; // calls answered locally, added up per second across page loads
}

const KEY = "gatewaycircuit_demo_storm";
const KEEP_S = 120; // as long as the gateway keeps its own history
const DRAWN_S = 60;
const SVG = "http://www.w3.org/2000/svg";

function load(): History {
  try {
    const h = JSON.parse(sessionStorage.getItem(KEY) ?? "null") as History | null;
    if (h && Array.isArray(h.reached) && Array.isArray(h.local)) return h;
  } catch {
    // unreadable or unusable storage: the chart starts empty
  }
  return { reached: [], local: [] };
}

function save(h: History) {
  try {
    sessionStorage.setItem(KEY, JSON.stringify(h));
  } catch {
    // the chart is then per page, like metrics()
  }
}

const second = () => Math.floor(Date.now() / 1000);
const total = (s: Series) => s.reduce((sum, [, n]) => sum + n, 0);

/** Starts charting into `figure`: local answers every 250 ms, the gateway's count every second. */
export function stormChart(gc: GatewayCircuit, figure: HTMLElement) {
  const history = load();
  let counted = 0; // this page's answeredLocally already in history.local
  let samples = 0;

  const takeLocal = () => {
    const n = gc.metrics().answeredLocally;
    if (n <= counted) return;
    const s = second();
    const last = history.local[history.local.length - 1];
    if (last && last[0] === s) last[1] += n - counted;
    else history.local.push([s, n - counted]);
    counted = n;
    history.local = history.local.filter(([t]) => t > s - KEEP_S);
    save(history);
  };

  const readGateway = async () => {
    try {
      const res = await fetch("/__admin/counts", { cache: "no-store" });
      const c = (await res.json()) as { apiPerSecond?: Series };
      history.reached = c.apiPerSecond ?? [];
      samples++;
    } catch {
      return; // the gateway is away (or the page is leaving): keep what was read
    }
    takeLocal();
    save(history);
    draw(figure, history, samples);
  };

  draw(figure, history, samples);
  void readGateway();
  setInterval(takeLocal, 250);
  setInterval(() => void readGateway(), 1000);
  // F5: what this page answered since the last sample goes into the history.
  addEventListener("pagehide", takeLocal);
}

function el<K extends keyof SVGElementTagNameMap>(name: K, attrs: Record<string, string | number>, text?: string) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** Two bars per second for the last DRAWN_S seconds: reached (red), answered locally (green). */
function draw(figure: HTMLElement, h: History, samples: number) {
  const now = second();
  const per = (s: Series) => {
    const m = new Map(s);
    return Array.from({ length: DRAWN_S }, (_, i) => m.get(now - DRAWN_S + 1 + i) ?? 0);
  };
  const reached = per(h.reached);
  const local = per(h.local);
  const top = Math.max(5, ...reached, ...local);
  const W = 600, H = 150, left = 34, bottom = 18, slot = (W - left) / DRAWN_S;
  const y = (n: number) => ((H - bottom) * n) / top;

  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, role: "img" });
  svg.append(
    el("line", { x1: left, y1: H - bottom, x2: W, y2: H - bottom, stroke: "#9aa0ad" }),
    el("text", { x: left - 4, y: 10, "text-anchor": "end", class: "axis" }, `${top}/s`),
    el("text", { x: left - 4, y: H - bottom, "text-anchor": "end", class: "axis" }, "0"),
    el("text", { x: left, y: H - 4, class: "axis" }, `${DRAWN_S} s ago`),
    el("text", { x: W, y: H - 4, "text-anchor": "end", class: "axis" }, "now"),
  );
  for (let i = 0; i < DRAWN_S; i++) {
    const x = left + i * slot;
    if (reached[i]) svg.append(el("rect", { x: x + 1, y: H - bottom - y(reached[i]!), width: slot / 2 - 1, height: y(reached[i]!), class: "reached" }));
    if (local[i]) svg.append(el("rect", { x: x + slot / 2, y: H - bottom - y(local[i]!), width: slot / 2 - 1, height: y(local[i]!), class: "local" }));
  }
  const sums = { reached: reached.reduce((a, b) => a + b, 0), local: local.reduce((a, b) => a + b, 0) };
  const summary = `Last ${DRAWN_S} s: ${sums.reached} requests reached the gateway, ${sums.local} were answered by the module without it.`;
  svg.setAttribute("aria-label", summary);
  figure.querySelector("svg")?.replaceWith(svg);
  if (!figure.querySelector("svg")) figure.prepend(svg);
  figure.querySelector(".storm-summary")!.textContent = summary;

  figure.dataset.series = JSON.stringify(h);
  figure.dataset.reached = String(total(h.reached));
  figure.dataset.local = String(total(h.local));
  figure.dataset.samples = String(samples);
}
