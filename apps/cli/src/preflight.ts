import { pingPostgres } from "@evotrainer/db";
import { pingRedis } from "@evotrainer/queue";
import type { CliEnv } from "./env.ts";

/** Checks that PostgreSQL and Redis answer; returns one message per service that does not. */
export async function checkServices(env: CliEnv): Promise<string[]> {
  // The server, not the run database: the database itself is created by the migration step.
  const server = new URL(env.DATABASE_URL);
  server.pathname = "/postgres";
  const [postgres, redis] = await Promise.all([pingPostgres(server.toString()), pingRedis(env.REDIS_URL)]);
  return [postgres, redis].flatMap((check) => (check.ok ? [] : [check.error ?? "unknown error"]));
}
