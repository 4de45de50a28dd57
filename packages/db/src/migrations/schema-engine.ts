// Prisma's schema engine compiled to WebAssembly, driven over a `pg` connection.
// The Prisma CLI would download a native engine for this; the WASM build needs no download,
// so migrations work the same on a machine with or without internet.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { PrismaPg } from "@prisma/adapter-pg";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import * as bindings from "@prisma/schema-engine-wasm/schema_engine_bg";

let initialised = false;

function initWasm(): void {
  if (initialised) return;
  // The package's entry does `import "./x.wasm"`, which Node 20 cannot load; instantiate it by hand.
  const wasmPath = fileURLToPath(import.meta.resolve("@prisma/schema-engine-wasm/schema_engine_bg").replace(/\.js$/, ".wasm"));
  const module = new WebAssembly.Module(readFileSync(wasmPath));
  const instance = new WebAssembly.Instance(module, { "./schema_engine_bg.js": bindings as unknown as WebAssembly.ModuleImports });
  bindings.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
  initialised = true;
}

export type SchemaEngine = bindings.SchemaEngine;

/** Opens a schema engine on the database at `url`; `log` receives the engine's log lines. */
export async function openSchemaEngine(url: string, log: (line: string) => void = () => {}): Promise<SchemaEngine> {
  initWasm();
  const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaPg({ connectionString: url }));
  return bindings.SchemaEngine.new({ datamodels: undefined }, log, adapter);
}
