import { QueryTable } from "@gatewaycircuit/portal-kit/query-table";

const QUERIES = ["users", "roles", "stats", "audit-log", "feature-flags", "billing", "alerts", "jobs", "tenants", "settings"].map((name) => ({ name, url: `/api/admin/${name}` }));

export default function Page() {
  return (
    <main>
      <h1>관리자 포털</h1>
      <QueryTable queries={QUERIES} />
    </main>
  );
}
