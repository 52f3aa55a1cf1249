// The page of the failure-mode matrix (e2e/matrix.test.mjs): ten TanStack
// Query cards (query-core's QueryObserver, as useQuery mounts them), fired on
// load, in one of three set-ups:
//
//   defaults  TanStack's defaults and the browser's fetch: no module, no tag
//             (3 retries, 1 s / 2 s / 4 s apart); its outage screen shows
//             when a card failed with 502/503/504
//   module    the README's recommended setup: the tag, gatewayCircuit.queryFn,
//             retry and retryDelay, connectQueryClient and its outage()
//   breaker   the ~50-line sessionStorage breaker an app writes by hand (the
//             baseline where the defaults have none): TanStack's defaults, a
//             502/503/504 stores "open until" for ttl ms, and while open a
//             query fails at once and is not retried
//
// The page's API for the test: settled() resolves once every card has
// settled (with the module, once Go ran or could not, at most 10 s); counts() says how many are in success, error and pending;
// overlayShown() whether the outage screen shows, overlayEver() whether it
// ever did on this load; tryAgain() is its button;
// refetchOne() fetches card 0 again; mutate() posts once; focusTab() is the
// user coming back to the tab (TanStack refetches on it).
//
// Sections: `cards` ("/api/a/:5,/api/b/:5") puts the cards under those
// prefixes (by default all n under /api/items/), `scope` is the tag's
// data-scope (/api/); openSection(prefix, n) mounts n more cards under prefix
// on the same page, as a client-side route would, and settles like settled();
// countsOf(prefix) counts the cards under prefix.

/** The bundle the page loads as window.Lib: query-core and the package's ESM entry (js/src). */
export const BUNDLE = `export { QueryClient, QueryObserver } from "@tanstack/query-core";
export { gatewayCircuit, connectQueryClient } from "./js/src/index.ts";`;

const BREAKER = `
  // A sessionStorage breaker, as an app writes one by hand.
  const KEY = "matrix_breaker_until";
  const openUntil = () => { const u = Number(sessionStorage.getItem(KEY)); return u > Date.now() ? u : 0; };
  const breaker = {
    async fetchJSON(url) {
      if (openUntil()) throw Object.assign(new Error("circuit open"), { open: true });
      const res = await fetch(url);
      if ([502, 503, 504].includes(res.status)) sessionStorage.setItem(KEY, String(Date.now() + TTL));
      if (!res.ok) throw Object.assign(new Error("HTTP " + res.status), { status: res.status });
      return res.json();
    },
    retry: (n, e) => !e.open && !openUntil() && n < 3,
    clear: () => sessionStorage.removeItem(KEY),
  };`;

/**
 * The page for `variant` with `n` cards under /api/items/ (or the sections of
 * `cards`, "prefix:n,prefix:n"); `ttl` the circuit's (module: data-ttl-ms) or
 * the breaker's TTL (null: the module's defaults, and 120 s for the
 * breaker); `maxTtl` the module's data-max-ttl-ms (null: its default);
 * `scope` the module's data-scope.
 */
export function matrixPage({ variant, n = 10, ttl = null, maxTtl = null, cards = null, scope = "/api/" }) {
  const sections = cards ? cards.split(",").map((c) => ({ prefix: c.slice(0, c.lastIndexOf(":")), n: Number(c.slice(c.lastIndexOf(":") + 1)) })) : [{ prefix: "/api/items/", n }];
  const attr = (v) => String(v).replace(/[&"<]/g, (c) => `&#${c.charCodeAt(0)};`);
  const tag = variant === "module" ? `<script src="/gateway-circuit.js" data-scope="${attr(scope)}"${ttl ? ` data-ttl-ms="${ttl}"` : ""}${maxTtl ? ` data-max-ttl-ms="${maxTtl}"` : ""}></script>` : "";
  const setups = {
    defaults: `
  const client = new Lib.QueryClient();
  const queryFn = (url) => async () => {
    const res = await fetch(url);
    if (!res.ok) throw Object.assign(new Error("HTTP " + res.status), { status: res.status });
    return res.json();
  };
  const failedQueries = () => client.getQueryCache().findAll().filter((q) => q.state.status === "error");
  const outage = () => failedQueries().some((q) => [502, 503, 504].includes(q.state.error.status));
  const tryAgain = () => client.refetchQueries({ predicate: (q) => q.state.status === "error" });`,
    breaker: `${BREAKER}
  const client = new Lib.QueryClient({ defaultOptions: { queries: { retry: breaker.retry } } });
  const queryFn = (url) => () => breaker.fetchJSON(url);
  const outage = () => openUntil() > 0;
  const tryAgain = () => (breaker.clear(), client.refetchQueries({ predicate: (q) => q.state.status === "error" }));`,
    module: `
  const { gatewayCircuit, connectQueryClient } = Lib;
  const client = new Lib.QueryClient({
    defaultOptions: { queries: { retry: gatewayCircuit.retry, retryDelay: gatewayCircuit.retryDelay } },
  });
  const gateway = connectQueryClient(client);
  const queryFn = (url) => gatewayCircuit.queryFn(url);
  const outage = () => gateway.outage() !== null;
  const tryAgain = () => gateway.tryAgain();`,
  };
  return `<!doctype html><meta charset="utf-8"><title>matrix: ${variant}</title>
${tag}
<script src="/matrix-bundle.js"></script>
<div id="overlay" hidden>잠시 후 다시 시도해 주세요</div>
<script>
  const TTL = ${ttl ?? 120_000};
  ${setups[variant]}
  client.mount(); // as React's QueryClientProvider does: TanStack refetches on focus and on reconnect from here
  const observers = [];
  const mount = (prefix, n) => {
    for (let i = 0; i < n; i++) {
      const o = new Lib.QueryObserver(client, { queryKey: ["item", prefix, i], queryFn: queryFn(prefix + i) });
      o.prefix = prefix;
      o.subscribe(() => {});
      observers.push(o);
    }
  };
  for (const { prefix, n } of ${JSON.stringify(sections)}) mount(prefix, n);
  const screen = document.getElementById("overlay");
  let everShown = false;
  setInterval(() => (screen.hidden = !outage()) || (everShown = true), 50);
  window.overlayEver = () => everShown;
  const results = (prefix) => observers.filter((o) => prefix === undefined || o.prefix === prefix).map((o) => o.getCurrentResult());
  window.countsOf = (prefix) => {
    const r = results(prefix);
    const of = (s) => r.filter((x) => x.status === s).length;
    return { success: of("success"), error: of("error"), pending: of("pending") };
  };
  window.counts = () => window.countsOf();
  window.errors = () => results().filter((r) => r.error).map((r) => String(r.error.message));
  // With the module, "the end" is once Go ran (or could not): a 502/503/504
  // answered before waits for its judgement, and may be fetched again then.
  const quiet = ${variant === "module" ? "() => Promise.race([Lib.gatewayCircuit.ready, new Promise((r) => setTimeout(r, 10_000))]).catch(() => {}).then(() => new Promise((r) => setTimeout(r, 100)))" : "() => Promise.resolve()"};
  window.settled = () => quiet().then(() => new Promise((resolve) => {
    const check = () => results().every((r) => r.status !== "pending" && r.fetchStatus === "idle") ? resolve(window.counts()) : setTimeout(check, 50);
    check();
  }));
  window.overlayShown = () => new Promise((r) => setTimeout(() => r(!screen.hidden), 100));
  window.tryAgain = async () => { await tryAgain(); return window.settled(); };
  window.openSection = (prefix, n) => (mount(prefix, n), window.settled());
  window.refetchOne = () => observers[0].refetch().then(() => window.counts());
  window.focusTab = () => window.dispatchEvent(new Event("visibilitychange")); // what TanStack's focusManager listens to
  window.mutate = () => ${variant === "module" ? "gatewayCircuit.fetch" : "fetch"}("/api/orders", { method: "POST", body: "{}" }).then((r) => r.status, () => 0);
</script>`;
}
