import pg from "pg";
import type { ServiceStatus } from "@evotrainer/core";
import { postgresStatus } from "./postgres-status.ts";

export interface PgPoolOptions {
  max?: number;
  /** Where this pool's outages are said; the process's shared status of its server by default. */
  status?: ServiceStatus;
}

const statuses = new WeakMap<pg.Pool, ServiceStatus>();

/**
 * A pg pool that survives its server going away. An idle client whose connection PostgreSQL ends (a
 * restart, a failover, pg_terminate_backend) makes the pool emit `error`, which kills the process
 * when nothing listens: here it marks PostgreSQL down, once per outage, and the pool opens a new
 * connection for the next query. The first connection that opens again marks it back.
 */
export function createPgPool(databaseUrl: string, options: PgPoolOptions = {}): pg.Pool {
  const status = options.status ?? postgresStatus(databaseUrl);
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.max ?? 10,
    // A server that went away without closing its sockets (a failover) is noticed, not waited on forever.
    keepAlive: true,
    connectionTimeoutMillis: 10_000,
  });
  pool.on("error", (error) => status.down(error.message));
  pool.on("connect", (client) => {
    // A checked-out client's connection dropping mid-query is reported by that query; this keeps
    // its 'error' event from going unheard when the drop comes between two queries.
    client.on("error", (error) => status.down(error.message));
    status.up();
  });
  statuses.set(pool, status);
  return pool;
}

/** The status a pool made by createPgPool reports to (a pool made elsewhere gets its server's shared one). */
export function statusOfPool(pool: pg.Pool): ServiceStatus {
  return statuses.get(pool) ?? postgresStatus(pool.options.connectionString ?? "postgresql://unknown");
}
