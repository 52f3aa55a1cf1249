// The calls Go keys (a Send with Flag.Keyed) carry an Idempotency-Key: Go decides the key
// (one per user action, derived from the operation and the canonical body,
// so a double click or a retry after a failure or a reload reuses it), and
// identical submissions in flight share one request through the flight table.

import { Code, Idem } from "./abi.gen.js";
import { GatewayIdempotencyError } from "./errors.js";
import type { FlightTable } from "./flights.js";
import { encoder } from "./gostorage.js";
import { type Core, type Plan, sendShared, statusOf } from "./network.js";
import { MARKER_HEADER } from "./query.js";
import { type Described, initFor } from "./request.js";

/** The body's bytes, or null when it cannot be read without consuming it (FormData's boundary is random; streams). */
async function bodyBytes(input: RequestInfo | URL, init: RequestInit | undefined, req: Described): Promise<Uint8Array | null> {
  const b = init?.body;
  if (b === undefined || b === null) {
    if (!req.requestBody) return new Uint8Array(0);
    // A Request's FormData body: its boundary makes it unfit for a key.
    if (/^multipart\/form-data/i.test((input as Request).headers.get("content-type") ?? "")) return null;
    try {
      return new Uint8Array(await (input as Request).clone().arrayBuffer());
    } catch {
      return null; // a body that cannot be read twice is sent as it is
    }
  }
  if (typeof b === "string" || b instanceof URLSearchParams) return encoder.encode(String(b));
  if (b instanceof ArrayBuffer) return new Uint8Array(b);
  if (ArrayBuffer.isView(b)) return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  if (typeof Blob !== "undefined" && b instanceof Blob) return new Uint8Array(await b.arrayBuffer());
  return null;
}

/**
 * Sends a mutation Go let through on plan's ticket. `release` runs once the
 * request is over (it hands a half-open probe over).
 */
export async function sendMutation(core: Core, flights: FlightTable, plan: Plan, release: () => void): Promise<Response> {
  const { ticket, input, init, req } = plan;
  const body = await bodyBytes(input, init, req).catch(() => null);
  const sub = body && core.call((e) => e.idemBegin(core.now(), req.method, req.url, req.headers, body));
  // A body that cannot be fingerprinted (a stream, FormData, over 1 MiB or
  // nested deeper than 64), or any limit the caller did not choose: sent as
  // it is, without a key, never refused.
  if (!sub || (sub.code < 0 && sub.code !== Code.BadKey && sub.code !== Code.KeyReused)) {
    return sendShared(core, flights, `t${ticket}`, plan, release);
  }
  if (sub.code < 0 || sub.code === Idem.Join) {
    core.call((e) => e.abort(ticket)); // nothing goes out for this call
    release();
  }
  if (sub.code < 0) {
    core.counts.idempotencyRefused++;
    core.counts.answeredLocally++;
    if (sub.code === Code.BadKey) throw new GatewayIdempotencyError(sub.message);
    return new Response(JSON.stringify({ error: "idempotency_key_reused", message: sub.message }), {
      status: 422,
      statusText: "Unprocessable Content",
      headers: { "content-type": "application/json", [MARKER_HEADER]: "idempotency" },
    });
  }
  const key = `m ${sub.operation} ${sub.key}`;
  if (sub.code === Idem.Join) {
    const shared = flights.get(key);
    if (shared && !shared.settled) {
      core.counts.coalesced++;
      core.counts.answeredLocally++;
      return shared.add(req.signal);
    }
    // The action's request just ended: Go said join, but there is nothing to join.
  }
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  if (sub.header) headers.set("idempotency-key", sub.header); // (none: the caller's own is sent verbatim)
  return sendShared(core, flights, key, { ...plan, init: initFor(input, init, { headers }) }, (res) => {
    // No answer: the effect may have happened; the next try keeps the key.
    core.call((e) => e.idemFinish(core.now(), sub.operation, sub.key, res ? statusOf(res) : 0));
    if (sub.code !== Idem.Join) release();
  });
}
