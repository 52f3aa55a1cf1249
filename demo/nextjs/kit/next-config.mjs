// The Next config both portals use.

import { fileURLToPath } from "node:url";

// The module package (js/) lives outside this workspace, three levels up:
// Turbopack only reads files under its root.
const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

/** @returns {import("next").NextConfig} */
export function portalConfig() {
  return {
    turbopack: { root: repoRoot },
    outputFileTracingRoot: repoRoot,
    transpilePackages: ["@gatewaycircuit/portal-kit"],
    poweredByHeader: false,
    // create-next-app's defaults since 16.4 (Next asks new apps for both). The
    // root layouts then say `instant = false`: they read a nonce per request,
    // so nothing prerenders.
    cacheComponents: true,
    partialPrefetching: true,
    async headers() {
      return [
        {
          // gateway-circuit.<hash>.js/.wasm: a new build is a new name, so cache forever.
          source: "/_gc/:file*",
          headers: [
            { key: "Cache-Control", value: "public, max-age=31536000, immutable" },
            { key: "X-Content-Type-Options", value: "nosniff" },
          ],
        },
        {
          // WebAssembly.instantiateStreaming refuses any other type.
          source: "/_gc/:file([^/]+\\.wasm)",
          headers: [{ key: "Content-Type", value: "application/wasm" }],
        },
      ];
    },
  };
}
