// The guards for the module's errors (errors.ts). The errors carry a
// registered-symbol brand, so the guards work across bundles and realms and
// need none of the classes: the tag's file has the guards, not the classes.

import type { GatewayHttpError, GatewayIdempotencyError } from "./errors.js";

export const BRAND = Symbol.for("gatewaycircuit.error");

/** True for GatewayHttpError (and, by its brand, GatewayIdempotencyError). */
export function isGatewayError(e: unknown): e is GatewayHttpError {
  return typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[BRAND] === true;
}

export function isCircuitOpenError(e: unknown): e is GatewayHttpError & { circuitOpen: true } {
  return isGatewayError(e) && e.circuitOpen === true;
}

export function isIdempotencyError(e: unknown): e is GatewayIdempotencyError {
  return isGatewayError(e) && typeof (e as { code?: unknown }).code === "string" && (e as { code: string }).code.startsWith("IDEMPOTENCY_");
}
