// The facade behind its own API object, for tests (a page's object is the stand-in's, which adopts the facade).

import { createApi } from "../src/api.js";
import { type Environment, createCircuit } from "../src/circuit.js";
import type { DataAttributes, ResolvedOptions } from "../src/config.js";
import type { GatewayCircuit } from "../src/types.js";

export function createGatewayCircuit(o: ResolvedOptions, env: Environment, data: DataAttributes = {}): GatewayCircuit {
  const c = createCircuit(o, env, data);
  return createApi(() => c);
}
