import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@evotrainer/api";
import { contextFor } from "~/server/trpc-context";

const handler = (req: Request) =>
  fetchRequestHandler({
    endpoint: "/api/trpc",
    router: appRouter,
    req,
    createContext: () => contextFor(req.headers),
    // Path and message only: inputs may carry share tokens or API keys.
    onError: ({ path, error }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`tRPC ${path ?? "?"}: ${error.message}`);
    },
  });

export { handler as GET, handler as POST };
