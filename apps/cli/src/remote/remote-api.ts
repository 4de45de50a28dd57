import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import SuperJSON from "superjson";
import type { AppRouter } from "@evotrainer/api";
import type { Credentials } from "./credentials.ts";

export type RemoteApi = ReturnType<typeof remoteApi>;

/** The server's tRPC API over HTTP, as the API key's owner. */
export function remoteApi(credentials: Credentials) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: new URL("/api/trpc", credentials.server).toString(),
        transformer: SuperJSON,
        headers: { authorization: `Bearer ${credentials.apiKey}` },
      }),
    ],
  });
}

/** A failed call as the user can act on it: which server, and what to fix. */
export function remoteError(server: string, error: unknown): Error {
  if (error instanceof TRPCClientError) {
    const status = (error.data as { httpStatus?: number } | undefined)?.httpStatus;
    if (status === 401) return new Error(`${server} refused the API key: create a new one in the dashboard (Settings → API keys), then \`evotrainer login ${server}\``);
    if (status === undefined) return new Error(`cannot reach ${server} (${error.message}): is the dashboard running there? \`evotrainer logout\` works locally again`);
    return new Error(`${server}: ${error.message}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}

/** One call to the server, its failure turned into what the user can act on. */
export async function onServer<T>(credentials: Credentials, call: (api: RemoteApi) => Promise<T>): Promise<T> {
  try {
    return await call(remoteApi(credentials));
  } catch (error) {
    throw remoteError(credentials.server, error);
  }
}
