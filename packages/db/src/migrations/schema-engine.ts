// Prisma's schema engine compiled to WebAssembly, driven over a `pg` connection.
// The Prisma CLI would download a native engine for this; the WASM build needs no download,
// so migrations work the same on a machine with or without internet.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { PrismaPg } from "@prisma/adapter-pg";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import pg from "pg";
import * as bindings from "@prisma/schema-engine-wasm/schema_engine_bg";
import { createPgPool } from "../connection/pg-pool.ts";

// Node 20's type definitions lack the WebAssembly global; declare the part used here.
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, unknown>) => { exports: Record<string, unknown> };
};

let initialised = false;

function initWasm(): void {
  if (initialised) return;
  // The package's entry does `import "./x.wasm"`, which Node 20 cannot load; instantiate it by hand.
  const wasmPath = createRequire(import.meta.url).resolve("@prisma/schema-engine-wasm/schema_engine_bg").replace(/\.js$/, ".wasm");
  const module = new WebAssembly.Module(readFileSync(wasmPath));
  const instance = new WebAssembly.Instance(module, { "./schema_engine_bg.js": bindings });
  bindings.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
  initialised = true;
}

export type SchemaEngine = bindings.SchemaEngine;

export interface OpenSchemaEngine {
  engine: SchemaEngine;
  /** Frees the engine and ends its connections, which releases its migration advisory lock. */
  close(): Promise<void>;
}

/** Opens a schema engine on the database at `url`; `log` receives the engine's log lines. */
export async function openSchemaEngine(url: string, log: (line: string) => void = () => {}): Promise<OpenSchemaEngine> {
  initWasm();
  const pool = createPgPool(url, { max: 2 });
  const engine = await bindings.SchemaEngine.new({ datamodels: undefined }, log, bindMigrationAwareSqlAdapterFactory(wholeScriptPg(pool)));
  return {
    engine,
    close: async () => {
      engine.free();
      await pool.end();
    },
  };
}

/**
 * `@prisma/adapter-pg` runs a migration script by splitting it on every ";", which breaks any
 * statement with a semicolon inside (a PL/pgSQL function body, a string literal). Postgres runs
 * a multi-statement script itself, in one implicit transaction, as the native engine does.
 */
function wholeScriptPg(pool: pg.Pool): PrismaPg {
  const factory = new PrismaPg(pool);
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    adapter.executeScript = async (script: string) => {
      await pool.query(script);
    };
    return adapter;
  };
  return factory;
}
