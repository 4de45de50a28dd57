import { buildRunReport, createDatabase, type RunReport } from "@evotrainer/db";
import { loadCliEnv } from "../env.ts";
import { progressWithReason, treeText } from "../progress.ts";
import { remoteCredentials } from "../remote/credentials.ts";

function print(report: RunReport, args: string[], brief: boolean): void {
  if (args.includes("--json")) console.log(JSON.stringify(report, null, 2));
  else console.log(brief ? `${report.runId} ${report.name}: ${progressWithReason(report)}` : `${report.name} (${report.runId})\n${progressWithReason(report)}\n${treeText(report)}`);
}

/** `evotrainer report <runId> [--json]` and `evotrainer status [runId]`. */
export async function reportCommand(args: string[], brief: boolean): Promise<number> {
  const runId = args.find((a) => !a.startsWith("--"));
  const remote = remoteCredentials();
  if (remote) {
    // The server's client (tRPC, superjson) is loaded only when there is a server to talk to.
    const { onServer } = await import("../remote/remote-api.ts");
    print(await onServer(remote, (api) => api.run.report.query(runId ? { runId } : {})), args, brief);
    return 0;
  }
  return localReport(runId, args, brief);
}

async function localReport(requested: string | undefined, args: string[], brief: boolean): Promise<number> {
  const env = loadCliEnv();
  const db = createDatabase(env.DATABASE_URL);
  try {
    let runId = requested;
    if (!runId) {
      const latest = await db.run.findFirst({ orderBy: { createdAt: "desc" } });
      if (!latest) throw new Error("no runs yet: start one with `evotrainer run examples/gym-swe.yaml`");
      runId = latest.id;
    }
    const exists = await db.run.findUnique({ where: { id: runId } });
    if (!exists) throw new Error(`no run with id ${runId}; \`evotrainer status\` shows the latest`);
    print(await buildRunReport(db, runId), args, brief);
    return 0;
  } finally {
    await db.$disconnect();
  }
}
