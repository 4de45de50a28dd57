// Runs `prisma generate` without letting the Prisma CLI download its native schema engine:
// generation does not need it, and machines without internet would otherwise fail at install time.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

if (!existsSync("node_modules/.bin/prisma")) {
  console.log("prisma-generate: prisma CLI not installed yet, skipping");
  process.exit(0);
}
const result = spawnSync("node_modules/.bin/prisma", ["generate"], {
  stdio: "inherit",
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? "/bin/false",
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
    CHECKPOINT_DISABLE: "1",
  },
});
process.exit(result.status ?? 1);
