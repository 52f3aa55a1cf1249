import { PortalDocument } from "@gatewaycircuit/portal-kit/document";
import type { Metadata } from "next";
import type { ReactNode } from "react";

// The layout reads the request's CSP nonce (headers()), so every page renders
// per request. With cacheComponents (create-next-app's default) that must be
// said: the route may block on the server instead of prerendering a shell.
export const instant = false;

export const metadata: Metadata = { title: "사용자 포털" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return <PortalDocument portal="user">{children}</PortalDocument>;
}
