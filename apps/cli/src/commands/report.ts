import { buildRunReport, createDatabase } from "@evotrainer/db";
import { loadCliEnv } from "../env.ts";
import { progressLine, treeText } from "../progress.ts";

/** `evotrainer report <runId> [--json]` and `evotrainer status [runId]`. */
export async function reportCommand(args: string[], brief: boolean): Promise<number> {
  const env = loadCliEnv();
  const db = createDatabase(env.DATABASE_URL);
  try {
    let runId = args.find((a) => !a.startsWith("--"));
    if (!runId) {
      const latest = await db.run.findFirst({ orderBy: { createdAt: "desc" } });
      if (!latest) throw new Error("no runs yet: start one with `evotrainer run examples/gym-swe.yaml`");
      runId = latest.id;
    }
    const exists = await db.run.findUnique({ where: { id: runId } });
    if (!exists) throw new Error(`no run with id ${runId}; \`evotrainer status\` shows the latest`);
    const report = await buildRunReport(db, runId);
    if (args.includes("--json")) console.log(JSON.stringify(report, null, 2));
    else console.log(brief ? `${report.runId} ${report.name}: ${progressLine(report)}` : `${report.name} (${report.runId})\n${progressLine(report)}\n${treeText(report)}`);
    return 0;
  } finally {
    await db.$disconnect();
  }
}
