import { defaultShouldDehydrateQuery, QueryClient } from "@tanstack/react-query";
import SuperJSON from "superjson";

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      // Data prefetched on the server is fresh for a while, so the client does not refetch at once.
      queries: { staleTime: 30_000 },
      dehydrate: {
        serializeData: SuperJSON.serialize,
        // Pending queries too: the client picks up a prefetch that is still streaming.
        shouldDehydrateQuery: (query) => defaultShouldDehydrateQuery(query) || query.state.status === "pending",
      },
      hydrate: { deserializeData: SuperJSON.deserialize },
    },
  });
}
