import { PrismaPg } from "@prisma/adapter-pg";
import type { ServiceStatus } from "@evotrainer/core";
import { createPgPool } from "./connection/pg-pool.ts";
import { postgresStatus } from "./connection/postgres-status.ts";
import { PrismaClient } from "./generated/prisma/client.ts";

export type Database = PrismaClient;

export interface DatabaseOptions {
  /** Connections at most (pg's default is 10). */
  max?: number;
  /** Where this client's outages are said; the process's shared status of its server by default. */
  status?: ServiceStatus;
}

const statuses = new WeakMap<Database, ServiceStatus>();

/**
 * A Prisma client over a pg pool this project owns (prisma/orm#27641: the adapter's own pool is
 * created out of reach, and an idle connection ended by the server would throw from it unheard).
 * Each app owns one and disconnects it on shutdown, which ends the pool.
 */
export function createDatabase(databaseUrl: string, options: DatabaseOptions = {}): Database {
  const status = options.status ?? postgresStatus(databaseUrl);
  const pool = createPgPool(databaseUrl, { status, ...(options.max ? { max: options.max } : {}) });
  const db = new PrismaClient({
    adapter: new PrismaPg(pool, { disposeExternalPool: true, onPoolError: (error) => status.down(error.message), onConnectionError: (error) => status.down(error.message) }),
  });
  statuses.set(db, status);
  return db;
}

/** The status a client's outages are said on: for callers that retry while PostgreSQL is away. */
export function statusOfDatabase(db: Database): ServiceStatus {
  const status = statuses.get(db);
  if (!status) throw new Error("statusOfDatabase: this client was not made by createDatabase");
  return status;
}
