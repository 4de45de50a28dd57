import type { Database } from "@evotrainer/db";

/**
 * Whether the run's sealed evaluation is out: the monitor writes `finalReport.sealed` once, when
 * it has scored the split at the end of the run. Until then a share link must not see the split at
 * all, since a person holding the link could tune against it.
 */
export async function sealedReleased(db: Database, runId: string): Promise<boolean> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { finalReport: true } });
  const report = run?.finalReport as { sealed?: unknown } | null | undefined;
  return typeof report?.sealed === "object" && report.sealed !== null;
}
