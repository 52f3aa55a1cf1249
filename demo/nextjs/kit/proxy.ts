// The portals' proxy (Next 16's name for middleware), for two jobs:
//
// - /api/*: forwarded to the gateway, read from GATEWAY_URL when the server
//   starts, not when it is built (next.config rewrites are frozen into the
//   build), so one build runs against any gateway. Same origin for the
//   browser: no CORS preflights (which the circuit could not hold back), no
//   Access-Control-Expose-Headers for Retry-After, connect-src 'self'. In
//   production an ingress in front of both portals usually does this.
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
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic' 'wasm-unsafe-eval'`,
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  if (pathname.startsWith("/api/")) return NextResponse.rewrite(new URL(pathname + search, gateway()));

  const nonce = btoa(crypto.randomUUID());
  const csp = contentSecurityPolicy(nonce);
  const forwarded = new Headers(request.headers);
  forwarded.set("x-nonce", nonce);
  forwarded.set("content-security-policy", csp);
  const res = NextResponse.next({ request: { headers: forwarded } });
  res.headers.set("content-security-policy", csp);
  return res;
}
