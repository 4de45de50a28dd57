"use client";

import { useState, type ReactNode } from "react";
import { QueryClientProvider, type QueryClient } from "@tanstack/react-query";
import { createTRPCClient, httpBatchStreamLink, loggerLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import SuperJSON from "superjson";
import type { AppRouter } from "@evotrainer/api";
import { createQueryClient } from "./query-client";

// Same name as the API reads; kept here so the client bundle does not import server code.
const SHARE_TOKEN_HEADER = "x-evo-share-token";

export const { useTRPC, TRPCProvider } = createTRPCContext<AppRouter>();

let browserQueryClient: QueryClient | undefined;
function getQueryClient(): QueryClient {
  // The server renders with a fresh client per request; the browser keeps one for the session.
  if (typeof window === "undefined") return createQueryClient();
  return (browserQueryClient ??= createQueryClient());
}

/** `shareToken`: on share pages every call carries the link's token instead of a session. */
export function TRPCReactProvider({ children, shareToken }: { children: ReactNode; shareToken?: string }) {
  const queryClient = getQueryClient();
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [
        // Development only: a production console is the user's, and the pages already show every error.
        loggerLink({ enabled: () => process.env.NODE_ENV === "development" }),
        httpBatchStreamLink({
          transformer: SuperJSON,
          url: "/api/trpc",
          headers: () => ({ "x-trpc-source": "nextjs-react", ...(shareToken ? { [SHARE_TOKEN_HEADER]: shareToken } : {}) }),
        }),
      ],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
