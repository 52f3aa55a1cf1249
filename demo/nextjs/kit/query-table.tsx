"use client";
// A portal page's data: one TanStack query per API path, fetched through the
// circuit. Each row says its state (data-state) so a test can wait for it.

import { gatewayCircuit, isGatewayError } from "@gatewaycircuit/browser";
import { useQuery } from "@tanstack/react-query";

export interface PortalQuery {
  name: string;
  url: string;
}

export function QueryTable({ queries }: { queries: readonly PortalQuery[] }) {
  return (
    <table>
      <thead>
        <tr>
          <th>query</th>
          <th>status</th>
          <th>detail</th>
        </tr>
      </thead>
      <tbody>
        {queries.map((q) => (
          <QueryRow key={q.url} query={q} />
        ))}
      </tbody>
    </table>
  );
}

function QueryRow({ query }: { query: PortalQuery }) {
  const { status, data, error } = useQuery({ queryKey: [query.url], queryFn: gatewayCircuit.queryFn(query.url) });
  const detail =
    status === "success" ? JSON.stringify(data) : isGatewayError(error) ? `${error.code} ${error.httpStatus}` : error ? String(error) : "";
  return (
    <tr data-testid="query" data-state={status}>
      <td>{query.name}</td>
      <td className={status}>{status}</td>
      <td className="detail">{detail}</td>
    </tr>
  );
}
