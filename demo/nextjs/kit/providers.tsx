"use client";
// TanStack Query wired to the circuit: queries fetch through it
// (gatewayCircuit.queryFn in query-table.tsx), never retry what it refuses
// (gatewayCircuit.retry), and every query error reaches the overlay store.

import { gatewayCircuit } from "@gatewaycircuit/browser";
import { QueryCache, QueryClient, QueryClientProvider, useQueryClient } from "@tanstack/react-query";
import { type ReactNode, useEffect, useState, useSyncExternalStore } from "react";
import { overlay, overlayFromError } from "./overlay-store";

export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        queryCache: new QueryCache({ onError: overlayFromError }),
        defaultOptions: { queries: { retry: gatewayCircuit.retry, staleTime: 30_000 } },
      }),
  );
  // Arm, clear, expiry, and once right away when a circuit was restored from before the reload.
  useEffect(() => gatewayCircuit.subscribe((s) => (s ? overlay.show(s) : overlay.hide())), []);
  return (
    <QueryClientProvider client={client}>
      {children}
      <Overlay />
    </QueryClientProvider>
  );
}

/** Always rendered; portal.css shows it while <html data-gateway-circuit="armed">. */
function Overlay() {
  const state = useSyncExternalStore(overlay.subscribe, overlay.get, overlay.getServer);
  const client = useQueryClient();
  const now = useClock(state !== null);
  const seconds = state && now ? Math.max(0, Math.ceil((state.until - now) / 1000)) : null;

  const retry = () => {
    gatewayCircuit.clear(); // the user asked to try again: close the circuit...
    overlay.hide();
    void client.refetchQueries({ type: "active" }); // ...and let the failed queries go out once
  };

  return (
    <div className="gc-overlay" role="alertdialog" aria-modal="true" aria-labelledby="gc-overlay-title" data-testid="overlay">
      <div className="gc-card">
        <h2 id="gc-overlay-title">잠시 후 다시 시도해 주세요</h2>
        <p>
          서버가 응답하지 않습니다
          {state && (
            <>
              {" "}(게이트웨이 응답 <strong data-testid="overlay-status">{state.httpStatus}</strong>)
            </>
          )}
          {seconds !== null && <> · {seconds}초 후 자동으로 다시 연결합니다.</>}
        </p>
        <button type="button" onClick={retry} data-testid="overlay-dismiss">
          다시 시도
        </button>
      </div>
    </div>
  );
}

/** Date.now(), refreshed every second while `on`; 0 until mounted (no clock in server HTML). */
function useClock(on: boolean): number {
  const [now, setNow] = useState(0);
  useEffect(() => {
    if (!on) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [on]);
  return now;
}
