// Go's wasm_exec.js defines globalThis.Go and, when absent, Node-style
// globalThis.process and globalThis.path stubs. A page must not see those: a
// fake `process` without `env` breaks the common
// `typeof process !== "undefined" && process.env.NODE_ENV` probe, and a page
// that loads its own Go wasm has its own `Go` (maybe another version).
// So the module keeps them private: they are restored to what the page had
// right after wasm_exec.js runs, and exist only for the synchronous
// go.run() call in which Go's syscall package captures them.
// (globalThis.fs stays: the runtime reads it by name to print a panic.)

const NAMES = ["Go", "process", "path"] as const;
type Name = (typeof NAMES)[number];

const g = globalThis as unknown as Record<Name, unknown>;
/** The names the page holds now, with their values. */
const present = () => new Map(NAMES.filter((n) => n in g).map((n) => [n, g[n]] as const));
/** Sets each name `values` holds and deletes the others. */
function restore(values: Map<Name, unknown>): void {
  for (const n of NAMES) {
    if (values.has(n)) g[n] = values.get(n);
    else delete g[n];
  }
}
const pageHad = present();

export interface GoRuntime {
  importObject: WebAssembly.Imports;
  exited: boolean;
  run(instance: WebAssembly.Instance): Promise<void>;
}

let ours: Map<Name, unknown> | null = null;

/** Call once, right after wasm_exec.js ran: takes its globals off the page. */
export function takeGoGlobals(): void {
  ours = new Map(NAMES.map((n) => [n, g[n]] as const));
  restore(pageHad);
}

/** A new Go runtime instance (wasm_exec.js's Go). */
export function newGo(): GoRuntime {
  return new (ours!.get("Go") as new () => GoRuntime)();
}

/** Runs go.run() with wasm_exec's globals in place, and takes them off again. */
export function runGo(go: GoRuntime, instance: WebAssembly.Instance): Promise<void> {
  const saved = present();
  restore(ours!);
  try {
    return go.run(instance);
  } finally {
    restore(saved);
  }
}
