// Separate entry point: the WASM schema engine must not end up in the web app's bundle.
export { applyMigrations, diffSchemas } from "./migrate.ts";
export { ensureDatabase } from "./ensure-database.ts";
