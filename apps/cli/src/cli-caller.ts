import { appRouter, createCallerFactory, createContext, ensureLocalAdmin } from "@evotrainer/api";
import { createDatabase, type Database } from "@evotrainer/db";
import { createProducerConnection, Producer } from "@evotrainer/queue";
import { loadCliEnv } from "./env.ts";

/**
 * The API as the CLI calls it: in-process, through the same procedures, roles and writers as the
 * dashboard. The caller is the owner of `EVO_API_KEY` when it is set; otherwise the installation's
 * local admin, the account an operator with shell access to the control plane already holds. It is
 * created on first use, so a local install needs no dashboard (quickstart) to be controlled.
 */
export async function cliCaller(db: Database, producer: () => Producer, apiKey: string | undefined) {
  const headers = new Headers(apiKey ? { authorization: `Bearer ${apiKey}` } : {});
  const adminId = apiKey ? null : await localAdminId(db);
  return createCallerFactory(appRouter)(createContext({ db, headers, producer, sessionUserId: async () => adminId }));
}

async function localAdminId(db: Database): Promise<string> {
  const admin = await ensureLocalAdmin(db);
  // stderr: a script reading the command's output (users list --json) gets only the answer.
  if (admin.password) console.error(`evotrainer: created the local admin ${admin.email} with password ${admin.password} (shown once: keep it for the dashboard)`);
  return admin.userId;
}

export type LocalApi = Awaited<ReturnType<typeof cliCaller>>;

/**
 * One call to the API in-process, beside this machine's Postgres and Redis, which are closed after.
 * A refusal (a TRPCError, not a dependency of the CLI) is rethrown as "<what> refused: <reason>".
 */
export async function onLocalApi<T>(what: string, call: (api: LocalApi) => Promise<T>, hint: (message: string) => string = () => ""): Promise<T> {
  const env = loadCliEnv();
  const db = createDatabase(env.DATABASE_URL);
  const connection = createProducerConnection(env.REDIS_URL);
  const producer = new Producer(connection, env.EVO_QUEUE_PREFIX);
  try {
    return await call(await cliCaller(db, () => producer, env.EVO_API_KEY));
  } catch (error) {
    if (error instanceof Error && error.name === "TRPCError") throw new Error(`${what} refused: ${error.message}${hint(error.message)}`);
    throw error;
  } finally {
    await producer.close();
    connection.disconnect();
    await db.$disconnect();
  }
}
