import { readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import pg from "pg";
import { applyMigrations, ensureDatabase } from "@evotrainer/db/migrations";
import { MIGRATIONS_DIR } from "@evotrainer/db/testing";

const migrationNames = readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe("offline migrations (WASM schema engine)", () => {
  const server = new URL(inject("databaseUrl"));
  const name = `evotrainer_test_migrate_${process.pid}`;
  server.pathname = `/${name}`;
  const url = server.toString();

  const admin = () => {
    const adminUrl = new URL(url);
    adminUrl.pathname = "/postgres";
    return new pg.Client({ connectionString: adminUrl.toString() });
  };

  beforeAll(async () => {
    expect(await ensureDatabase(url)).toBe(true);
  });

  afterAll(async () => {
    const client = admin();
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.end();
  });

  it("applies every migration on an empty database, then nothing the second time", async () => {
    expect(migrationNames.length).toBeGreaterThan(0);
    expect(await applyMigrations(url, MIGRATIONS_DIR)).toEqual(migrationNames);
    expect(await applyMigrations(url, MIGRATIONS_DIR)).toEqual([]);
  });

  it("records the history in _prisma_migrations as finished, once per migration", async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{ migration_name: string; finished: boolean; rolled_back: boolean }>(
      `SELECT migration_name, finished_at IS NOT NULL AS finished, rolled_back_at IS NOT NULL AS rolled_back
         FROM _prisma_migrations ORDER BY migration_name`,
    );
    await client.end();
    expect(rows).toEqual(migrationNames.map((migration_name) => ({ migration_name, finished: true, rolled_back: false })));
  });

  it("does not create the database again when it exists", async () => {
    expect(await ensureDatabase(url)).toBe(false);
  });
});
