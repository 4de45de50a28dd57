import "server-only";
import { createDatabase, type Database } from "@evotrainer/db";
import { env } from "~/env";

// One client per server process; dev-mode hot reload would otherwise open a pool per edit.
const globalForDb = globalThis as unknown as { evoDb?: Database };
export const db = globalForDb.evoDb ?? createDatabase(env.DATABASE_URL);
if (process.env.NODE_ENV !== "production") globalForDb.evoDb = db;
