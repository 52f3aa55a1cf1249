import { QueryTable } from "@gatewaycircuit/portal-kit/query-table";

const QUERIES = ["me", "orders", "cart", "notifications", "points", "coupons", "addresses", "wishlist", "recent", "support"].map((name) => ({ name, url: `/api/user/${name}` }));

export default function Page() {
  return (
    <main>
      <h1>사용자 포털</h1>
      <QueryTable queries={QUERIES} />
    </main>
  );
}
