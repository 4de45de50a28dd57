// Subpaths, not the package's index: through the index, the bundle would load every repository
// (and the CEL compiler, the zod schemas of every record) with the one this needs.
import { createDatabase } from "@evotrainer/db/client";
import { loadRunProgress } from "@evotrainer/db/run-progress";
import { loadCliEnv } from "../env.ts";
import { progressLine } from "../progress.ts";
import { remoteCredentials } from "../remote/credentials.ts";

/**
 * `evotrainer status [runId] [--json]`: one line on a run, read with one query. It imports only what
 * that line needs (the full report's code, the server's client, come when asked for): a status is
 * typed often and should answer at once (docs/install-cli.md, "How fast it starts").
 */
export async function statusCommand(args: string[]): Promise<number> {
  if (args.includes("--json") || remoteCredentials()) return (await import("./report.ts")).reportCommand(args, true);
  const requested = args.find((a) => !a.startsWith("--"));
  const db = createDatabase(loadCliEnv().DATABASE_URL);
  try {
    const progress = await loadRunProgress(db, requested);
    if (!progress && requested) throw new Error(`no run with id ${requested}; \`evotrainer status\` shows the latest`);
    if (!progress) throw new Error("no runs yet: start one with `evotrainer run examples/gym-swe.yaml`");
    console.log(`${progress.runId} ${progress.name}: ${progressLine(progress)}`);
    return 0;
  } finally {
    await db.$disconnect();
  }
}
