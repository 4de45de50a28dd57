import "server-only";
import { cache, type ReactNode } from "react";
import { headers } from "next/headers";
import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import { createTRPCOptionsProxy, type TRPCQueryOptions } from "@trpc/tanstack-react-query";
import { appRouter, type AppRouter } from "@evotrainer/api";
import { contextFor } from "~/server/trpc-context";
import { createQueryClient } from "./query-client";

// One QueryClient per request.
export const getQueryClient = cache(createQueryClient);

export const trpc = createTRPCOptionsProxy<AppRouter>({
  router: appRouter,
  ctx: async () => contextFor(new Headers(await headers())),
  queryClient: getQueryClient,
});

export function HydrateClient({ children }: { children: ReactNode }) {
  return <HydrationBoundary state={dehydrate(getQueryClient())}>{children}</HydrationBoundary>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function prefetch<T extends ReturnType<TRPCQueryOptions<any>>>(queryOptions: T): void {
  void getQueryClient().prefetchQuery(queryOptions);
}
