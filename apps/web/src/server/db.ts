import "server-only";
import { createDatabase, type Database } from "@evotrainer/db";
import { createIngestPool, type IngestPool } from "@evotrainer/db/ingest";
import { env } from "~/env";

// One client per server process; dev-mode hot reload would otherwise open a pool per edit.
const globalForDb = globalThis as unknown as { evoDb?: Database; evoIngestPool?: IngestPool };
export const db = globalForDb.evoDb ?? createDatabase(env.DATABASE_URL);
if (process.env.NODE_ENV !== "production") globalForDb.evoDb = db;

/** COPY connections for imports over HTTP (`evotrainer import` logged in to this server), opened on the first one. */
export function ingestPool(): IngestPool {
  return (globalForDb.evoIngestPool ??= createIngestPool(env.DATABASE_URL));
}
