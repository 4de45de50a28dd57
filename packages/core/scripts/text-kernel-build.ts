// Compiles wasm/text-kernel.ts (AssemblyScript) and embeds the module in src/text/text-kernel.wasm.ts,
// so that the pure package carries its bytes and reads no file. Run: npm run build:kernel -w @evotrainer/core
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import asc from "assemblyscript/asc";

const SOURCE = fileURLToPath(new URL("../wasm/text-kernel.ts", import.meta.url));
export const EMBEDDED = fileURLToPath(new URL("../src/text/text-kernel.wasm.ts", import.meta.url));

/** The kernel's WebAssembly module, compiled from its source: small, with SIMD, no imports. */
export async function compileTextKernel(): Promise<Uint8Array> {
  let binary: Uint8Array | undefined;
  const errors: string[] = [];
  const { error } = await asc.main([SOURCE, "-O3", "--runtime", "stub", "--noAssert", "--enable", "simd", "--use", "abort=", "--outFile", "text-kernel.wasm"], {
    readFile: (name, baseDir) => {
      try {
        return readFileSync(name.startsWith("/") ? name : `${baseDir}/${name}`, "utf8");
      } catch {
        return null;
      }
    },
    writeFile: (name, contents) => {
      if (name.endsWith(".wasm") && contents instanceof Uint8Array) binary = contents;
    },
    listFiles: () => [],
    stderr: { write: (text: string | Uint8Array) => (errors.push(String(text)), true) } as never,
    stdout: { write: () => true } as never,
  });
  if (error || !binary) throw new Error(`the text kernel did not compile (${SOURCE}): ${error?.message ?? ""}\n${errors.join("")}`);
  return binary;
}

/** The TypeScript module that carries the compiled kernel. */
export function embeddedModule(binary: Uint8Array): string {
  return [
    "// Generated from wasm/text-kernel.ts by npm run build:kernel -w @evotrainer/core; do not edit.",
    "// text-kernel.test.ts fails when this is not what the source compiles to.",
    `export const TEXT_KERNEL_WASM = "${Buffer.from(binary).toString("base64")}";`,
    "",
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const binary = await compileTextKernel();
  writeFileSync(EMBEDDED, embeddedModule(binary));
  console.log(`wrote ${EMBEDDED} (${binary.length} bytes of WebAssembly)`);
}
