import { openSchemaEngine } from "./schema-engine.ts";
import { readMigrationList } from "./migration-list.ts";

const noFilters = { externalTables: [], externalEnums: [] };

/**
 * Applies every migration in `migrationsDir` not yet recorded in `_prisma_migrations`
 * (what `prisma migrate deploy` does) and returns the names it applied: empty when up to date.
 */
export async function applyMigrations(databaseUrl: string, migrationsDir: string): Promise<string[]> {
  const { engine, close } = await openSchemaEngine(databaseUrl);
  try {
    const { appliedMigrationNames } = await engine.applyMigrations({
      migrationsList: readMigrationList(migrationsDir),
      filters: noFilters,
    });
    return appliedMigrationNames;
  } finally {
    await close();
  }
}

/**
 * The SQL that takes a database from schema `from` to schema `to` (`prisma migrate diff --script`).
 * Both are schema file contents; `from: null` means an empty database. No shadow database needed.
 */
export async function diffSchemas(databaseUrl: string, from: string | null, to: string): Promise<string> {
  const { engine, close } = await openSchemaEngine(databaseUrl);
  try {
    const result = await engine.diff({
      from: from === null ? { tag: "empty" } : { tag: "schemaDatamodel", files: [{ path: "schema.prisma", content: from }] },
      to: { tag: "schemaDatamodel", files: [{ path: "schema.prisma", content: to }] },
      script: true,
      exitCode: null,
      filters: noFilters,
    });
    return result.stdout ?? "";
  } finally {
    await close();
  }
}
