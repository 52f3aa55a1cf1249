import { PortalDocument } from "@gatewaycircuit/portal-kit/document";
import type { Metadata } from "next";
import type { ReactNode } from "react";

export const metadata: Metadata = { title: "사용자 포털" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return <PortalDocument portal="user">{children}</PortalDocument>;
}
