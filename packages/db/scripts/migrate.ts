// npm run db:migrate — applies prisma/migrations/* offline through the WASM schema engine.
import { fileURLToPath } from "node:url";
import { loadEnv, databaseEnvSchema } from "../src/env.ts";
import { ensureDatabase } from "../src/migrations/ensure-database.ts";
import { applyMigrations } from "../src/migrations/migrate.ts";

if (process.env.DATABASE_URL === undefined) {
  try { process.loadEnvFile(".env"); } catch { /* .env is optional */ }
}
const env = loadEnv(databaseEnvSchema, process.env, "db:migrate");
const migrationsDir = fileURLToPath(new URL("../../../prisma/migrations", import.meta.url));
const redacted = env.DATABASE_URL.replace(/\/\/([^:@/]+):[^@/]+@/, "//$1:***@");

try {
  if (await ensureDatabase(env.DATABASE_URL)) console.log(`db:migrate: created database ${redacted}`);
  const applied = await applyMigrations(env.DATABASE_URL, migrationsDir);
  if (applied.length === 0) console.log(`db:migrate: ${redacted} is up to date`);
  else for (const name of applied) console.log(`db:migrate: applied ${name}`);
} catch (error) {
  console.error(`db:migrate: could not migrate ${redacted}: ${error instanceof Error ? error.message : String(error)}`);
  console.error("db:migrate: is PostgreSQL running and does the database exist? (see README › Requirements)");
  process.exit(1);
}
