// The answers the module makes up, each marked with X-Gateway-Circuit: the
// synthetic 503 of a blocking state, and kept copies (stale or cached).

import { Limit } from "./abi.gen.js";
import { copyAsRead } from "./bodycopy.js";
import { MARKER_HEADER } from "./query.js";

export type BlockMarker = "open" | "cooldown" | "negative";

const ERRORS: Record<BlockMarker, string> = {
  open: "gateway_circuit_open",
  cooldown: "gateway_cooldown",
  negative: "gateway_negative_cache",
};

/** The synthetic 503: which policy answered, the status behind it, until when. */
export function synthetic(marker: BlockMarker, until: number, httpStatus: number, now: number): Response {
  const retryAfter = Math.max(1, Math.ceil((until - now) / 1000));
  return new Response(`{"error":"${ERRORS[marker]}","httpStatus":${httpStatus},"until":${until}}`, {
    status: 503,
    statusText: "Service Unavailable",
    headers: { "content-type": "application/json", [MARKER_HEADER]: marker, "retry-after": String(retryAfter) },
  });
}

/** The bodies of the copies Go keeps (Go decides which, and when they go). */
export class Copies {
  private readonly byId = new Map<number, ResponseInit & { body: ArrayBuffer }>();

  get size(): number {
    return this.byId.size;
  }

  /** copyAsRead(res) with `store` as its `done`: the copy is kept under the id it returns (0: not kept), then `stored` runs. */
  keep(res: Response, store: (body: ArrayBuffer | null) => number, stored: () => void): Response {
    const { status, statusText } = res;
    const headers = [...res.headers];
    return copyAsRead(res, Limit.MaxCopy, (body) => {
      const id = store(body);
      if (id && body) this.byId.set(id, { body, status, statusText, headers });
      stored();
    });
  }

  drop(id: number): void {
    this.byId.delete(id);
  }

  /** The copy as a Response that says it is stale (or cached) and how old; null when gone. */
  answer(id: number, ageMs: number, storedAtMs: number, marker: "stale" | "cached" = "stale"): Response | null {
    const c = this.byId.get(id);
    if (!c) return null;
    const headers = new Headers(c.headers);
    headers.set("age", String(Math.floor(ageMs / 1000)));
    headers.set(MARKER_HEADER, marker);
    headers.set("x-gateway-collected-at", new Date(storedAtMs).toISOString());
    return new Response(c.body.slice(0), { status: c.status, statusText: c.statusText, headers });
  }
}
