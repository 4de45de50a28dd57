import { SETTLING_BRANCH_STATUSES, settledStatus } from "@evotrainer/core";
import { recordEvent } from "@evotrainer/db";
import { advanceRun } from "./advance-run.ts";
import type { LoopDeps } from "./deps.ts";
import { learnSkills } from "./skills.ts";

/**
 * Applies a completion decision to a judged branch: approve promotes it (and makes it the best so
 * far when it scores higher), veto and revise reject it; then the run moves on. Skills are learned
 * before the branch settles, so the next round (proposed once every branch has settled) sees them.
 */
export async function settleBranch(deps: LoopDeps, branchId: string, decisionId: string): Promise<string> {
  const { db } = deps;
  const [branch, decision] = await Promise.all([
    db.branch.findUniqueOrThrow({ where: { id: branchId } }),
    db.decision.findUniqueOrThrow({ where: { id: decisionId } }),
  ]);
  if (!(SETTLING_BRANCH_STATUSES as readonly string[]).includes(branch.status)) return "already settled";
  const status = settledStatus({ kind: decision.kind, actor: decision.actorType });
  // What was learned must not hold up the run: a failure here is logged, and the loop moves on.
  await learnSkills(deps, branchId, status === "promoted").catch((error: unknown) =>
    deps.log(`skills: learning from branch ${branchId} failed: ${error instanceof Error ? error.message : String(error)}`),
  );

  const settled = await db.$transaction(async (tx) => {
    // Siblings settle concurrently; the run row's lock orders their best-so-far comparisons.
    await tx.$queryRaw`SELECT id FROM "Run" WHERE id = ${branch.runId} FOR UPDATE`;
    const moved = await tx.branch.updateMany({ where: { id: branchId, status: { in: [...SETTLING_BRANCH_STATUSES] } }, data: { status } });
    if (moved.count === 0) return false;
    await recordEvent(tx, {
      runId: branch.runId,
      branchId,
      type: "branch_settled",
      actor: "system",
      payload: { decisionId, kind: decision.kind, status },
    });
    const run = await tx.run.findUniqueOrThrow({ where: { id: branch.runId }, include: { bestBranch: true } });
    const best = run.bestBranch;
    if (status === "promoted" && (best?.promotionScore ?? -Infinity) < (branch.promotionScore ?? -Infinity)) {
      await tx.run.update({ where: { id: branch.runId }, data: { bestBranchId: branchId } });
      await recordEvent(tx, { runId: branch.runId, branchId, type: "promotion", actor: "system", payload: { bestSoFar: branchId, previous: best?.id ?? null, score: branch.promotionScore } });
    }
    return true;
  });
  if (!settled) return "already settled";
  await advanceRun(deps, branch.runId);
  return status;
}
