// An init script (context.addInitScript(spyOnGo)) that keeps wasm_exec.js's
// Go runtime instances in window.__go, by subclassing the Go class as it is
// defined. Tests reach the instance's exports (go._inst.exports) and the
// table of JS values Go holds (go._values minus go._idPool) through it.
export function spyOnGo() {
  let Go;
  window.__go = [];
  Object.defineProperty(globalThis, "Go", {
    configurable: true,
    get: () => Go,
    set(v) {
      Go =
        typeof v === "function"
          ? class extends v {
              constructor() {
                super();
                window.__go.push(this);
              }
            }
          : v;
    },
  });
}
