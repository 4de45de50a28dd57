import type { Database } from "../client.ts";
import type { ImportTarget } from "./import-target.ts";

/**
 * Removes what an import created when it stored nothing (every line quarantined, or nothing to
 * read): its base branch, or its run where the import created that too, so a failed import leaves
 * no empty run behind. Only a branch that still is nothing but that import goes: no rollouts, no
 * metric points, no other job, no decision. Returns whether it went.
 */
export async function discardEmptyImport(db: Database, target: Pick<ImportTarget, "runId" | "branchId" | "jobId">): Promise<boolean> {
  return db.$transaction(async (tx) => {
    // The run row's lock orders this against the loop or another import adding branches.
    await tx.$queryRaw`SELECT id FROM "Run" WHERE id = ${target.runId} FOR UPDATE`;
    const branch = await tx.branch.findUnique({
      where: { id: target.branchId },
      select: { runId: true, parentId: true, _count: { select: { rollouts: true, metricPoints: true, jobs: true, decisions: true } } },
    });
    if (!branch || branch.runId !== target.runId || branch.parentId !== null) return false;
    const counts = branch._count;
    if (counts.rollouts > 0 || counts.metricPoints > 0 || counts.decisions > 0 || counts.jobs !== 1) return false;
    if (!(await tx.job.findFirst({ where: { id: target.jobId, branchId: target.branchId, externalId: { startsWith: "import:" } } }))) return false;
    const others = await tx.branch.count({ where: { runId: target.runId, id: { not: target.branchId } } });
    if (others === 0) await tx.run.delete({ where: { id: target.runId } });
    else {
      // Quarantined lines hang off the run alone: the branch's go with it by hand.
      await tx.quarantinedLine.deleteMany({ where: { jobId: target.jobId } });
      await tx.branch.delete({ where: { id: target.branchId } });
    }
    return true;
  });
}
