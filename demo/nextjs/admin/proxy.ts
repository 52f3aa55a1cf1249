export { proxy } from "@gatewaycircuit/portal-kit/proxy";

// Pages and /api; not the immutable assets.
export const config = {
  matcher: ["/((?!_next/static|_next/image|_gc/|favicon.ico).*)"],
};
