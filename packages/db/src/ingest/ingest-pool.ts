import type pg from "pg";
import { createPgPool } from "../connection/pg-pool.ts";

/** Connections ingest writes through (COPY needs a plain pg connection, not Prisma's). */
export type IngestPool = pg.Pool;

/** A small pool for a process that ingests now and then (the dashboard's imports, the CLI). */
export function createIngestPool(databaseUrl: string, max = 2): IngestPool {
  return createPgPool(databaseUrl, { max });
}
