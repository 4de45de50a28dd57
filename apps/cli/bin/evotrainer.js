#!/usr/bin/env node
// The CLI as built JavaScript (`npm run build`: scripts/bundle-node.mjs), so it starts without a compiler.
import { setFlagsFromString } from "node:v8";

// A command lives for seconds: optimising the database client's WebAssembly (Prisma's query
// compiler) costs more CPU than it ever saves, about half of `evotrainer status`.
setFlagsFromString("--liftoff-only");
await import("../dist/main.js").catch((error) => {
  if (error?.code !== "ERR_MODULE_NOT_FOUND" || !String(error.message).includes("dist/main.js")) throw error;
  console.error("evotrainer: the CLI is not built yet; run `npm run build` in the repository first.");
  process.exit(1);
});
