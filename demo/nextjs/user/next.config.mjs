import { portalConfig } from "@gatewaycircuit/portal-kit/next-config";

export default portalConfig();
