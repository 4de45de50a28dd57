import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter, createContext } from "@evotrainer/api";
import { db } from "~/server/db";

const handler = (req: Request) =>
  fetchRequestHandler({
    endpoint: "/api/trpc",
    router: appRouter,
    req,
    createContext: () => createContext({ db }),
    onError: ({ path, error }) => console.error(`tRPC ${path ?? "?"}: ${error.message}`),
  });

export { handler as GET, handler as POST };
