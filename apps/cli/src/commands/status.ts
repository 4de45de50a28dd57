import type { RunProgress } from "@evotrainer/db";
import { loadCliEnv } from "../env.ts";
import { progressLine } from "../progress.ts";
import { remoteCredentials, type Credentials } from "../remote/credentials.ts";

/**
 * `evotrainer status [runId] [--json]`: one line on a run. It loads only what that line needs: the
 * server's client when there is a server, else the database client and one query; the full report
 * (`--json`) comes only when asked for. A status is typed often and should answer at once
 * (docs/install-cli.md, "How fast it starts").
 */
export async function statusCommand(args: string[]): Promise<number> {
  if (args.includes("--json")) return (await import("./report.ts")).reportCommand(args, true);
  const requested = args.find((a) => !a.startsWith("--"));
  const remote = remoteCredentials();
  const progress = remote ? await serverProgress(remote, requested) : await localProgress(requested);
  console.log(`${progress.runId} ${progress.name}: ${progressLine(progress)}`);
  return 0;
}

async function serverProgress(remote: Credentials, runId: string | undefined): Promise<RunProgress> {
  const { onServer } = await import("../remote/remote-api.ts");
  return onServer(remote, (api) => api.run.report.query(runId ? { runId } : {}));
}

async function localProgress(requested: string | undefined): Promise<RunProgress> {
  // Subpaths, not the package's index: through the index, the bundle would load every repository
  // (and the CEL compiler, the zod schemas of every record) with the one this needs.
  const [{ createDatabase }, { loadRunProgress }] = await Promise.all([import("@evotrainer/db/client"), import("@evotrainer/db/run-progress")]);
  const db = createDatabase(loadCliEnv().DATABASE_URL);
  try {
    const progress = await loadRunProgress(db, requested);
    if (!progress && requested) throw new Error(`no run with id ${requested}; \`evotrainer status\` shows the latest`);
    if (!progress) throw new Error("no runs yet: start one with `evotrainer run examples/gym-swe.yaml`");
    return progress;
  } finally {
    await db.$disconnect();
  }
}
