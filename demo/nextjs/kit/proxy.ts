// The portals' proxy (Next 16's name for middleware), for two jobs:
//
// - /api/*: forwarded to the gateway named by GATEWAY_URL at run time, not at
//   build time (next.config rewrites are frozen into the build), so one build
//   runs against any gateway. Same origin for the browser: no CORS preflights
//   (which the circuit could not hold back), no Access-Control-Expose-Headers
//   for Retry-After, connect-src 'self'. An unreachable gateway is answered
//   with 502, as a reverse proxy does (a plain Next rewrite answers 500, which
//   is the app's status and would never arm the circuit). In production an
//   ingress in front of both portals usually does this job.
// - every page: a fresh nonce and a strict Content-Security-Policy. Next
//   reads the nonce from the request's CSP header and puts it on its own
//   scripts; the layout reads x-nonce for the inline marker and next/script.

import { type NextRequest, NextResponse } from "next/server";

const gateway = () => process.env.GATEWAY_URL ?? "http://127.0.0.1:8080";

/**
 * 'strict-dynamic' lets the nonced scripts load their chunks (and Next load
 * the beforeInteractive script); 'wasm-unsafe-eval' is the one addition Go
 * wasm needs: WebAssembly compilation, not JS eval (wasm_exec.js uses none).
 */
export function contentSecurityPolicy(nonce: string, dev = process.env.NODE_ENV === "development"): string {
  return [
    "default-src 'self'",
    // next dev needs 'unsafe-eval' (React's dev tooling) and inline styles (its
    // dev overlay; a nonce would make browsers ignore 'unsafe-inline').
    // Production never gets either.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic' 'wasm-unsafe-eval'${dev ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' ${dev ? "'unsafe-inline'" : `'nonce-${nonce}'`}`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

// Hop-by-hop, or no longer true once fetch has decoded the body.
const DROPPED = ["connection", "keep-alive", "transfer-encoding", "content-encoding", "content-length", "host"];

async function forward(request: NextRequest): Promise<Response> {
  const { pathname, search } = request.nextUrl;
  const headers = new Headers(request.headers);
  for (const h of DROPPED) headers.delete(h);
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  let res: Response;
  try {
    res = await fetch(new URL(pathname + search, gateway()), {
      method: request.method,
      headers,
      body: hasBody ? request.body : undefined,
      redirect: "manual",
      signal: request.signal,
      ...(hasBody ? { duplex: "half" } : {}),
    } as RequestInit);
  } catch {
    return new Response(null, { status: 502, statusText: "Bad Gateway", headers: { "cache-control": "no-store" } });
  }
  const out = new Headers(res.headers);
  for (const h of DROPPED) out.delete(h);
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers: out });
}

export function proxy(request: NextRequest) {
  if (request.nextUrl.pathname.startsWith("/api/")) return forward(request);

  const nonce = btoa(crypto.randomUUID());
  const csp = contentSecurityPolicy(nonce);
  const forwarded = new Headers(request.headers);
  forwarded.set("x-nonce", nonce);
  forwarded.set("content-security-policy", csp);
  const res = NextResponse.next({ request: { headers: forwarded } });
  res.headers.set("content-security-policy", csp);
  return res;
}
