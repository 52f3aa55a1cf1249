// The demo page: N TanStack queries through gatewayCircuit, and the
// "잠시 후 다시 시도해 주세요" overlay driven by gatewayCircuit.subscribe.
// The e2e tests read the data-* attributes this page sets on <body>.

import { QueryCache, QueryClient, QueryObserver } from "@tanstack/query-core";
import type { CircuitState, GatewayCircuit } from "../../js/src/types.js";

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
for (let i = 0; i < count; i++) {
  const tr = document.createElement("tr");
  tr.innerHTML = `<td>/api/items/${i}</td><td class="status">pending</td><td class="detail"></td>`;
  rows.append(tr);
  const observer = new QueryObserver(queryClient, { queryKey: ["item", i], queryFn: gc.queryFn(`/api/items/${i}`) });
  observer.subscribe((r) => {
    tr.querySelector(".status")!.textContent = r.status;
    tr.querySelector(".status")!.className = `status ${r.status}`;
    const e = r.error;
    tr.querySelector(".detail")!.textContent = e
      ? gc.isGatewayError(e)
        ? `${e.code} ${e.httpStatus}`
        : String(e)
      : r.data
        ? JSON.stringify(r.data)
        : "";
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
gc.subscribe(render);

$("overlay-dismiss").addEventListener("click", () => {
  gc.clear();
  void queryClient.refetchQueries();
});
$("refetch").addEventListener("click", () => void queryClient.refetchQueries());
$("outside").addEventListener("click", async () => {
  const res = await gc.fetch("/outside/ping");
  body.dataset.outside = String(res.status);
});

const showStatus = () => {
  $("module-status").textContent = gc.status;
  body.dataset.module = gc.status;
};
showStatus();
gc.ready.then(showStatus, showStatus);
