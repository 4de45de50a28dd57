import { recordEvent } from "@evotrainer/db";
import { advanceRun } from "./advance-run.ts";
import type { LoopDeps } from "./deps.ts";
import { learnSkills } from "./skills.ts";

/**
 * Applies a completion decision to a judged branch: approve promotes it (and makes it the best so
 * far when it scores higher), veto and revise reject it; then the run moves on.
 */
export async function settleBranch(deps: LoopDeps, branchId: string, decisionId: string): Promise<string> {
  const { db } = deps;
  const outcome = await db.$transaction(async (tx) => {
    const branch = await tx.branch.findUniqueOrThrow({ where: { id: branchId }, include: { run: { include: { bestBranch: true } } } });
    if (branch.status !== "evaluating" && branch.status !== "awaiting_decision") return null;
    const decision = await tx.decision.findUniqueOrThrow({ where: { id: decisionId } });
    const status = decision.kind === "approve" ? "promoted" : decision.actorType === "human" && decision.kind === "veto" ? "vetoed" : "rejected";
    await tx.branch.update({ where: { id: branchId }, data: { status } });
    await recordEvent(tx, {
      runId: branch.runId,
      branchId,
      type: "decision",
      actor: decision.actorType === "human" ? `user:${decision.userId}` : "policy",
      payload: { kind: decision.kind, reason: decision.reason, instructions: decision.instructions, status },
    });
    const best = branch.run.bestBranch;
    if (status === "promoted" && (best?.promotionScore ?? -Infinity) < (branch.promotionScore ?? -Infinity)) {
      await tx.run.update({ where: { id: branch.runId }, data: { bestBranchId: branchId } });
      await recordEvent(tx, { runId: branch.runId, branchId, type: "promotion", actor: "system", payload: { bestSoFar: branchId, previous: best?.id ?? null, score: branch.promotionScore } });
    }
    return { runId: branch.runId, status };
  });
  if (!outcome) return "already settled";
  // What was learned must not hold up the run: a failure here is logged, and the loop moves on.
  await learnSkills(deps, branchId, outcome.status === "promoted").catch((error: unknown) =>
    deps.log(`skills: learning from branch ${branchId} failed: ${error instanceof Error ? error.message : String(error)}`),
  );
  await advanceRun(deps, outcome.runId);
  return outcome.status;
}
