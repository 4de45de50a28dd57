import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { DEFAULT_DATABASE_URL } from "../env.ts";
import { applyMigrations } from "../migrations/migrate.ts";

export const MIGRATIONS_DIR = fileURLToPath(new URL("../../../../prisma/migrations", import.meta.url));

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function onServer<T>(serverUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabase(serverUrl, "postgres") });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Creates a uniquely named database on the server of `serverUrl`, migrates it, and returns a
 * handle whose `drop()` removes it (terminating leftover connections first).
 */
export async function createTestDatabase(serverUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL): Promise<TestDatabase> {
  const name = `evotrainer_test_${randomBytes(6).toString("hex")}`;
  await onServer(serverUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = withDatabase(serverUrl, name);
  await applyMigrations(url, MIGRATIONS_DIR);
  return {
    name,
    url,
    drop: () => onServer(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}
