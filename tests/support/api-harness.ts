import { TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { appRouter, createCallerFactory, createContext, type ContextDeps } from "@evotrainer/api";
import { createDatabase } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { createProducerConnection, Producer } from "@evotrainer/queue";
import { deleteKeys, testPrefix } from "./redis-prefix.ts";

const createCaller = createCallerFactory(appRouter);

/**
 * A database of its own, a Redis key prefix with a producer on it, and tRPC callers over them as the
 * dashboard's server builds them: for API tests that write rows other files would count.
 */
export async function apiHarness(serverUrl: string, redisUrl: string) {
  const database = await createTestDatabase(serverUrl);
  const db = createDatabase(database.url);
  const prefix = testPrefix();
  const connection = createProducerConnection(redisUrl);
  const producer = new Producer(connection, prefix);
  return {
    database,
    db,
    prefix,
    connection,
    producer,
    /** A caller signed in as `userId` (none: anonymous); any other context dependency may be given. */
    callerAs(options: { userId?: string | null } & Partial<Omit<ContextDeps, "db" | "sessionUserId">> = {}) {
      const { userId = null, ...deps } = options;
      return createCaller(createContext({ db, headers: new Headers(), producer: () => producer, ...deps, sessionUserId: async () => userId }));
    },
    async close() {
      await producer.close();
      connection.disconnect();
      await deleteKeys(redisUrl, `${prefix}:*`);
      await db.$disconnect();
      await database.drop();
    },
  };
}

/** The HTTP status a client would see for a procedure call: 200, or the status its TRPCError maps to. */
export async function httpStatusOf(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
    return 200;
  } catch (error) {
    if (!(error instanceof TRPCError)) throw error;
    return getHTTPStatusCodeFromError(error);
  }
}
