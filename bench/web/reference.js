// The yardstick for the open path: the same rule as the module, in ~40 lines
// of plain JS, as a team would write it by hand. Not shipped.
(() => {
  const KEY = "gateway_circuit_v1";
  const TRIP = [502, 503, 504];
  const scope = [location.origin + "/api/"];
  let state = null;
  try {
    const s = JSON.parse(sessionStorage.getItem(KEY));
    if (s && Number.isInteger(s.until) && Number.isInteger(s.httpStatus)) state = s;
  } catch {}
  const inScope = (url) => scope.some((p) => url.startsWith(p));
  const urlOf = (input) =>
    typeof input === "string" ? new URL(input, document.baseURI).href : input instanceof URL ? input.href : input.url;
  function arm(httpStatus, ttlMs = 120000) {
    state = { until: Date.now() + ttlMs, httpStatus };
    try {
      sessionStorage.setItem(KEY, JSON.stringify(state));
    } catch {}
  }
  function open() {
    const retryAfter = Math.max(1, Math.ceil((state.until - Date.now()) / 1000));
    return new Response(`{"error":"gateway_circuit_open","httpStatus":${state.httpStatus},"until":${state.until}}`, {
      status: 503,
      statusText: "Service Unavailable",
      headers: { "content-type": "application/json", "x-gateway-circuit": "open", "retry-after": String(retryAfter) },
    });
  }
  function fetchGuarded(input, init) {
    const url = urlOf(input);
    if (!inScope(url)) return fetch(input, init);
    if (state && Date.now() < state.until) return Promise.resolve(open());
    return fetch(input, init).then((res) => {
      if (TRIP.includes(res.status) && !(state && Date.now() < state.until)) arm(res.status);
      return res;
    });
  }
  window.referenceCircuit = { fetch: fetchGuarded, arm };
})();
