// The root document both portals render: the two <head> tags that make the
// circuit work under a strict CSP, then the TanStack Query provider.
//
//  1. an inline script (with the request's nonce) that marks <html> before
//     first paint when the stored circuit is armed: portal.css then shows the
//     overlay in the very first frame, long before React hydrates;
//  2. the script-tag build through next/script beforeInteractive, configured
//     with data-* attributes: Next runs it before hydration, so
//     window.gatewayCircuit exists before any query runs.
//
// No preload of the wasm: a preload is fetched at high priority at page
// start, competing with the app's own bundles (LCP); the module fetches the
// wasm itself, at low priority once the page has loaded and is idle.

import { assets, markArmedScript } from "@gatewaycircuit/browser/head";
import { headers } from "next/headers";
import Script from "next/script";
import type { ReactNode } from "react";
import { Providers } from "./providers";
import "./portal.css";

/** Where gateway-circuit-assets copies the hashed files (public/_gc). */
export const ASSET_PATH = "/_gc/";

export async function PortalDocument({ portal, children }: { portal: string; children: ReactNode }) {
  // Set by proxy.ts for every page request; Next puts it on its own scripts too.
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  const wasm = ASSET_PATH + assets.wasm;
  return (
    // The marker script adds an attribute React did not render.
    <html lang="ko" data-portal={portal} suppressHydrationWarning>
      <head>
        <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: markArmedScript }} />
        <Script
          src={ASSET_PATH + assets.script}
          strategy="beforeInteractive"
          nonce={nonce}
          data-wasm={wasm}
          data-scope="/api/"
          data-ttl-ms={process.env.GATEWAY_CIRCUIT_TTL_MS}
        />
      </head>
      <body>
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
