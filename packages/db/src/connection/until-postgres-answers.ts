import pg from "pg";
import { isServiceUnavailable, type ServiceStatus } from "@evotrainer/core";
import { whileUnreachable } from "./while-unreachable.ts";

/**
 * Resolves once PostgreSQL at `databaseUrl` accepts a connection, saying on `status` while it does not
 * (once), and once it does again. Any other failure (a wrong password, a database not created yet) ends
 * the wait as well: it is the next query's to report, in its own words, not a reason to keep waiting.
 */
export async function untilPostgresAnswers(databaseUrl: string, status: ServiceStatus, signal?: AbortSignal): Promise<void> {
  await whileUnreachable(
    status,
    async () => {
      const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000 });
      // The connect reports its failure; an 'error' event unheard would end the process instead.
      client.on("error", () => {});
      try {
        await client.connect();
      } catch (error) {
        if (isServiceUnavailable(error)) throw error;
      } finally {
        await client.end().catch(() => {});
      }
    },
    signal,
  );
}
