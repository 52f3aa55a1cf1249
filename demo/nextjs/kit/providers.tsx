"use client";
// TanStack Query wired to the circuit: queries fetch through it
// (gatewayCircuit.queryFn in query-table.tsx), retry only what another try
// can fix, after the server's Retry-After (gatewayCircuit.retry, retryDelay),
// every query error reaches the overlay store, and the queries the gateway
// failed are fetched again when the circuit closes (connectQueryClient).

import { connectQueryClient, gatewayCircuit, type QueryClientConnection } from "@gatewaycircuit/browser";
import { QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, type RefObject, useEffect, useRef, useState, useSyncExternalStore } from "react";
import { overlay, overlayFromError } from "./overlay-store";

export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        queryCache: new QueryCache({ onError: overlayFromError }),
        defaultOptions: { queries: { retry: gatewayCircuit.retry, retryDelay: gatewayCircuit.retryDelay, staleTime: 30_000 } },
      }),
  );
  // Arm, clear, expiry, and once right away when a circuit was restored from before the reload.
  useEffect(() => gatewayCircuit.subscribe((s) => (s ? overlay.show(s) : overlay.hide())), []);
  // The failed queries again when the circuit closes or turns half-open: one first, the rest if it succeeds.
  const connection = useRef<QueryClientConnection | null>(null);
  useEffect(() => {
    const c = (connection.current = connectQueryClient(client));
    return c.disconnect;
  }, [client]);
  return (
    <QueryClientProvider client={client}>
      {children}
      <Overlay connection={connection} />
    </QueryClientProvider>
  );
}

/** Always rendered; portal.css shows it while <html data-gateway-circuit="armed">. */
function Overlay({ connection }: { connection: RefObject<QueryClientConnection | null> }) {
  const state = useSyncExternalStore(overlay.subscribe, overlay.get, overlay.getServer);
  const now = useClock(state !== null);
  const seconds = state?.until && now ? Math.max(0, Math.ceil((state.until - now) / 1000)) : null;

  const retry = () => {
    overlay.hide();
    // The user asked to try again: clear(), then one failed query; the rest only if it succeeds.
    void connection.current?.tryAgain();
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
