// The demo page: N TanStack queries through gatewayCircuit, and the
// "잠시 후 다시 시도해 주세요" overlay driven by gatewayCircuit.subscribe.
// The e2e tests read the data-* attributes this page sets on <body>.

import { QueryCache, QueryClient, QueryObserver } from "@tanstack/query-core";
import { toGatewayError } from "../../js/src/query.js";
import type { CircuitState, GatewayCircuit } from "../../js/src/types.js";
import { stormChart } from "./storm.js";

const gc = (window as unknown as { gatewayCircuit: GatewayCircuit }).gatewayCircuit;
const $ = (id: string) => document.getElementById(id)!;
const body = document.body;
const count = Number(body.dataset.queries ?? "6");

const queryClient = new QueryClient({
  queryCache: new QueryCache({
    // Fires again on every refetch; the overlay itself follows the circuit, so this only counts.
    onError: () => {
      body.dataset.errors = String(Number(body.dataset.errors ?? "0") + 1);
    },
  }),
  defaultOptions: { queries: { retry: gc.retry, refetchOnWindowFocus: false, staleTime: 0 } },
});

const rows = $("queries");
const settled = new Set<number>();

// fetchJSON would do, but the page also shows when an answer is a stale copy
// (data-stale="on") and how old it is.
interface Item {
  data: unknown;
  stale: boolean;
  ageSeconds: number;
}
const itemQuery =
  (url: string) =>
  async ({ signal }: { signal?: AbortSignal }): Promise<Item> => {
    const res = await gc.fetch(url, { signal });
    if (!res.ok) throw await toGatewayError(res);
    return {
      data: await res.json(),
      stale: res.headers.get("x-gateway-circuit") === "stale",
      ageSeconds: Number(res.headers.get("age") ?? 0),
    };
  };
for (let i = 0; i < count; i++) {
  const tr = document.createElement("tr");
  tr.innerHTML = `<td>/api/items/${i}</td><td class="status">pending</td><td class="detail"></td>`;
  rows.append(tr);
  const observer = new QueryObserver(queryClient, { queryKey: ["item", i], queryFn: itemQuery(`/api/items/${i}`) });
  observer.subscribe((r) => {
    tr.querySelector(".status")!.textContent = r.status;
    tr.querySelector(".status")!.className = `status ${r.status}`;
    const e = r.error;
    tr.querySelector(".detail")!.textContent = e
      ? gc.isGatewayError(e)
        ? `${e.code} ${e.httpStatus}`
        : String(e)
      : r.data
        ? (r.data.stale ? `stale, ${r.data.ageSeconds} s old: ` : "") + JSON.stringify(r.data.data)
        : "";
    tr.dataset.stale = String(Boolean(r.data?.stale && !r.error));
    if (r.status !== "pending" && !r.isFetching) settled.add(i);
    body.dataset.settled = String(settled.size);
  });
}

// The overlay: shown while the circuit is armed, restored after F5 by the
// subscription's first call, closed on expiry; dismissing it clears the circuit.
let countdown: ReturnType<typeof setInterval> | undefined;
function render(state: CircuitState | null) {
  clearInterval(countdown);
  const overlay = $("overlay");
  $("circuit-state").textContent = state ? `armed (${state.httpStatus})` : "closed";
  body.dataset.circuit = state ? "armed" : "closed";
  // The chart goes where the person looks: into the overlay while it is up.
  (state ? $("overlay-chart") : $("storm-home")).append($("storm"));
  if (!state) {
    overlay.hidden = true;
    return;
  }
  $("overlay-status").textContent = String(state.httpStatus);
  const tick = () => {
    $("overlay-remaining").textContent = String(Math.max(0, Math.ceil((state.until - Date.now()) / 1000)));
  };
  tick();
  countdown = setInterval(tick, 1000);
  overlay.hidden = false;
}
render(gc.read());
let wasArmed = gc.read() !== null;
gc.subscribe((state) => {
  render(state);
  // The circuit's time is up: ask again. The module lets one probe through
  // and holds the others until it answers.
  if (wasArmed && !state) void queryClient.refetchQueries();
  wasArmed = state !== null;
});

$("overlay-dismiss").addEventListener("click", () => {
  gc.clear();
  void queryClient.refetchQueries();
});
$("refetch").addEventListener("click", () => void queryClient.refetchQueries());
$("outside").addEventListener("click", async () => {
  const res = await gc.fetch("/outside/ping");
  body.dataset.outside = String(res.status);
});

// The policies at work, live; and the F5 storm, charted (storm.ts).
stormChart(gc, $("storm"));
const metricsBox = $("metrics");
setInterval(() => {
  metricsBox.textContent = Object.entries(gc.metrics())
    .map(([k, v]) => `${k} ${v}`)
    .join(" · ");
}, 500);

// Saving an order: a POST in scope, so the module gives it an Idempotency-Key
// derived from the body. A double click, a retry after a timeout and a retry
// after F5 are one action, and the gateway makes one row of it.
// ?saveTimeout=ms makes the page give up waiting (AbortSignal.timeout); a
// test changes it between saves with <body data-save-timeout>.
const saveTimeout = () => Number(body.dataset.saveTimeout ?? new URLSearchParams(location.search).get("saveTimeout") ?? 0);
const saves: string[] = [];
$("save").addEventListener("click", async () => {
  const init: RequestInit = {
    method: "POST",
    headers: { "content-type": "application/json", "x-demo-user": "demo" },
    body: JSON.stringify({ item: ($("order-item") as HTMLInputElement).value, qty: 1 }),
  };
  if (saveTimeout() > 0) init.signal = AbortSignal.timeout(saveTimeout());
  let outcome: string;
  try {
    const res = await gc.fetch("/api/orders", init);
    outcome = `${res.status}${res.headers.get("idempotency-replayed") ? " replayed" : ""}`;
  } catch (e) {
    outcome = e instanceof Error ? e.name : String(e);
  }
  saves.push(outcome);
  $("save-result").textContent = saves.join(", ");
  body.dataset.saves = JSON.stringify(saves);
});

const showStatus = () => {
  $("module-status").textContent = gc.status;
  body.dataset.module = gc.status;
};
showStatus();
gc.ready.then(showStatus, showStatus);
