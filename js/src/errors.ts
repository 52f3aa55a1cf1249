// Errors the TanStack Query helpers throw, with a brand and a stable code (brand.ts).

import { BRAND } from "./brand.js";

export type GatewayErrorCode = "GATEWAY_CIRCUIT_OPEN" | "GATEWAY_HTTP_ERROR";

/** A non-2xx answer, real or from the armed circuit. */
export class GatewayHttpError extends Error {
  override readonly name = "GatewayHttpError";
  /** `GATEWAY_CIRCUIT_OPEN` when the circuit answered, else `GATEWAY_HTTP_ERROR`. */
  readonly code: GatewayErrorCode;
  /** The status of the Response the caller got (503 when the circuit answered). */
  readonly status: number;
  /** The gateway failure: the response status, or the status that armed the circuit. */
  readonly httpStatus: number;
  /** True when the module answered without touching the network (see `reason`). */
  readonly circuitOpen: boolean;
  /** Which policy answered without the network: "open" (the circuit), "cooldown" (a 429 pause), "negative" (the negative cache); else null. */
  readonly reason: "open" | "cooldown" | "negative" | null;
  /** When the circuit closes (epoch ms), for open-circuit errors; else null. */
  readonly until: number | null;
  /** The wait the gateway asked for with `Retry-After` (ms), on an answer from the network; else null. Read as RFC 9110 writes it (delay-seconds or an HTTP-date in GMT, as Go reads it); anything else is null. */
  readonly retryAfterMs: number | null;
  readonly url: string;
  readonly [BRAND] = true;

  constructor(
    init: Pick<GatewayHttpError, "status" | "httpStatus" | "circuitOpen" | "until" | "url"> & Partial<Pick<GatewayHttpError, "reason" | "retryAfterMs">>,
  ) {
    super(init.circuitOpen ? `gateway circuit open (${init.httpStatus}) for ${init.url}` : `HTTP ${init.status} for ${init.url}`);
    this.code = init.circuitOpen ? "GATEWAY_CIRCUIT_OPEN" : "GATEWAY_HTTP_ERROR";
    this.status = init.status;
    this.httpStatus = init.httpStatus;
    this.circuitOpen = init.circuitOpen;
    this.reason = init.reason ?? (init.circuitOpen ? "open" : null);
    this.until = init.until;
    this.retryAfterMs = init.retryAfterMs ?? null;
    this.url = init.url;
  }
}

export type IdempotencyErrorCode = "IDEMPOTENCY_BAD_KEY";

/**
 * A mutation the module would not send: the app's own Idempotency-Key is malformed (not a key the IETF draft allows).
 * Nothing reached the network. The one refusal: limits the app did not choose (a body too large or too deep to
 * fingerprint, a full ledger) send the mutation without a key.
 */
export class GatewayIdempotencyError extends Error {
  override readonly name = "GatewayIdempotencyError";
  readonly code: IdempotencyErrorCode = "IDEMPOTENCY_BAD_KEY";
  readonly [BRAND] = true;

  constructor(message: string) {
    super(`gatewaycircuit: ${message}`);
  }
}
