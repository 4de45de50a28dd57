import { randomUUID } from "node:crypto";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter, TRPC_BODY_LIMIT_BYTES } from "@evotrainer/api";
import { env } from "~/env";
import { crossSiteWrite } from "~/lib/same-origin";
import { withBodyLimit } from "~/server/body-limit";
import { forbidden } from "~/server/http-errors";
import { contextFor } from "~/server/trpc-context";

const handler = async (incoming: Request) => {
  // Mutations are POSTs; a page of another site must not make one with the user's cookies.
  const refused = crossSiteWrite(incoming.method, incoming.headers, env.BETTER_AUTH_URL);
  if (refused) return forbidden(`cross-site request refused: ${refused}`);
  const req = await withBodyLimit(incoming, TRPC_BODY_LIMIT_BYTES);
  if (req instanceof Response) return req;
  const requestId = randomUUID();
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    router: appRouter,
    req,
    createContext: () => contextFor(req.headers, null, requestId),
    responseMeta: () => ({ headers: new Headers({ "x-request-id": requestId }) }),
    // The answer says only "internal error" and the request id (see the error formatter); the cause
    // goes here. Inputs are not logged: they may carry share tokens or API keys.
    onError: ({ path, error }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`tRPC ${path ?? "?"} [${requestId}]`, error.cause ?? error);
    },
  });
};

export { handler as GET, handler as POST };
