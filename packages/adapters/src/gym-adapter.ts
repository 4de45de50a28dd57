import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Job } from "@evotrainer/contract";
import type { TrainerAdapter } from "./adapter.ts";

/**
 * The built-in CPU gym speaks evo.job/v1 natively, so its outputs map to the contract as they are.
 * It runs as TypeScript through tsx's loader, like the worker itself; both are resolved to absolute
 * paths because the job runs in its own directory, outside this repository's node_modules.
 */
export function gymAdapter(): TrainerAdapter {
  const require = createRequire(import.meta.url);
  const cli = join(dirname(require.resolve("@evotrainer/gym")), "cli.ts");
  const tsxLoader = pathToFileURL(join(dirname(require.resolve("tsx/package.json")), "dist/loader.mjs")).href;
  return {
    name: "gym",
    render: (job: Job) => ({
      command: [process.execPath, "--import", tsxLoader, cli, "job.json"],
      env: {},
      files: { "job.json": `${JSON.stringify(job, null, 2)}\n` },
    }),
  };
}
