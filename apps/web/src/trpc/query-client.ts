import { defaultShouldDehydrateQuery, QueryClient } from "@tanstack/react-query";
import SuperJSON from "superjson";

function isClientError(error: unknown): boolean {
  const status = (error as { data?: { httpStatus?: unknown } } | null)?.data?.httpStatus;
  return typeof status === "number" && status >= 400 && status < 500;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      // Data prefetched on the server is fresh for a while, so the client does not refetch at once.
      // A 4xx (not found, forbidden, bad input) answers the same the next time: show it at once.
      queries: { staleTime: 30_000, retry: (failures, error) => !isClientError(error) && failures < 3 },
      dehydrate: {
        serializeData: SuperJSON.serialize,
        // Pending queries too: the client picks up a prefetch that is still streaming.
        shouldDehydrateQuery: (query) => defaultShouldDehydrateQuery(query) || query.state.status === "pending",
      },
      hydrate: { deserializeData: SuperJSON.deserialize },
    },
  });
}
