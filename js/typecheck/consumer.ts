// Compiled by `make test-js` (tsc --noEmit), never run: what an app writes
// with TanStack Query must type-check against the public types. The lines
// under an expect-error directive fail the build if they ever compile.

import {
  type DefaultError,
  QueryClient,
  type QueryKey,
  QueryObserver,
  type QueryObserverOptions,
  type QueryObserverResult,
} from "@tanstack/query-core";
import { connectQueryClient, createRetry, gatewayCircuit, isOutageError } from "../src/index.js";

interface User {
  id: number;
  name: string;
}

// @tanstack/react-query's useQuery, declared over query-core's types.
declare function useQuery<TQueryFnData = unknown, TError = DefaultError, TData = TQueryFnData, TQueryKey extends QueryKey = QueryKey>(
  options: QueryObserverOptions<TQueryFnData, TError, TData, TQueryFnData, TQueryKey>,
): QueryObserverResult<TData, TError>;

const client = new QueryClient({ defaultOptions: { queries: { retry: gatewayCircuit.retry, retryDelay: gatewayCircuit.retryDelay } } });

// The recommended setup: TanStack's own QueryClient fits connectQueryClient's shape.
const connection = connectQueryClient(client);
const stopOverlay: () => void = connection.subscribe((outage) => void outage?.httpStatus);
void connection.tryAgain().then(stopOverlay);
const fewer = new QueryClient({ defaultOptions: { queries: { retry: createRetry(1, gatewayCircuit) } } });
void fewer;
void isOutageError(new Error("x"));

// The README's line, and its variants: the type argument on either side, or inferred.
const explicit = useQuery<User>({ queryKey: ["me"], queryFn: gatewayCircuit.queryFn<User>("/api/me") });
const fromHook = useQuery<User>({ queryKey: ["me"], queryFn: gatewayCircuit.queryFn("/api/me") });
const fromFn = useQuery({ queryKey: ["me"], queryFn: gatewayCircuit.queryFn<User>("/api/me") });
const names: (string | undefined)[] = [explicit.data?.name, fromHook.data?.name, fromFn.data?.name];

// select narrows TData from the typed query data.
const selected = useQuery({ queryKey: ["me"], queryFn: gatewayCircuit.queryFn<User>("/api/me"), select: (u) => u.id });
const id: number | undefined = selected.data;

// Without a type argument the data stays unknown: no any leaks out.
const untyped = useQuery({ queryKey: ["me"], queryFn: gatewayCircuit.queryFn("/api/me") });
// @ts-expect-error unknown has no name
void untyped.data?.name;

// @ts-expect-error a queryFn for another type does not fit
useQuery<User>({ queryKey: ["me"], queryFn: gatewayCircuit.queryFn<{ id: string }>("/api/me") });

const observer = new QueryObserver<User>(client, { queryKey: ["me"], queryFn: gatewayCircuit.queryFn<User>("/api/me", { cache: "no-store" }) });
// The opt-in to abort on unmount is a typed option, not a stray key.
const abortable = useQuery<User>({ queryKey: ["me"], queryFn: gatewayCircuit.queryFn<User>("/api/me", { abortOnUnmount: true }) });
// @ts-expect-error a misspelt option is caught
gatewayCircuit.queryFn<User>("/api/me", { abortOnUnmout: true });
const fetched: Promise<User> = client.fetchQuery({ queryKey: ["me"], queryFn: gatewayCircuit.queryFn<User>("/api/me") });
const direct: Promise<User> = gatewayCircuit.fetchJSON<User>("/api/me");
const plain: Promise<unknown> = gatewayCircuit.fetchJSON("/api/me");

export { client, names, id, observer, abortable, fetched, direct, plain };
