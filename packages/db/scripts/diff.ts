// npm run db:diff -- NAME — writes prisma/migrations/<timestamp>_NAME/migration.sql from the change
// of prisma/schema.prisma since the last migration was committed. Offline; no shadow database.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_DATABASE_URL } from "../src/env.ts";
import { diffSchemas } from "../src/migrations/migrate.ts";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npm run db:diff -- NAME   (NAME: lower-case letters, digits and _, e.g. add_skill_tags)");
  process.exit(2);
}

function git(...args: string[]): string {
  return execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();
}

// The schema as it stood when the latest migration was committed is what the migrations produce.
const lastMigrationCommit = git("log", "-1", "--format=%H", "--", "prisma/migrations");
const from = lastMigrationCommit ? git("show", `${lastMigrationCommit}:prisma/schema.prisma`) : null;
const to = readFileSync(join(root, "prisma/schema.prisma"), "utf8");

// The engine needs a connection for its dialect even though the diff reads no database,
// so it talks to the server's always-present `postgres` database.
const server = new URL(process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL);
server.pathname = "/postgres";
const sql = await diffSchemas(server.toString(), from, to);
if (!/\b(CREATE|ALTER|DROP)\b/.test(sql)) {
  console.log("db:diff: prisma/schema.prisma has no change since the last migration; nothing written");
  process.exit(0);
}
const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
const dir = join(root, "prisma/migrations", `${stamp}_${name}`);
if (existsSync(dir)) throw new Error(`${dir} already exists`);
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, "migration.sql"), sql);
console.log(`db:diff: wrote ${dir}/migration.sql — review it, then npm run db:migrate`);
