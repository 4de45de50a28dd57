import type { LoopDeps } from "./deps.ts";
import { applyDesignDecision } from "./design-decision.ts";
import { settleBranch } from "./settle-branch.ts";

/**
 * Resumes the loop after a person decided on a branch waiting for them (recorded through the API or
 * CLI): a completion decision settles the branch; a design decision moves its round on.
 */
export async function decide(deps: LoopDeps, payload: { runId: string; branchId: string }): Promise<string> {
  const branch = await deps.db.branch.findUniqueOrThrow({ where: { id: payload.branchId } });
  if (branch.status === "awaiting_decision") {
    const decision = await deps.db.decision.findFirst({ where: { branchId: branch.id, stage: "completion" }, orderBy: { createdAt: "desc" } });
    if (!decision) return "still waiting for a decision";
    return settleBranch(deps, branch.id, decision.id);
  }
  const design = await deps.db.decision.findFirst({ where: { branchId: branch.id, stage: "design" } });
  if (design || branch.status === "proposed") return applyDesignDecision(deps, branch);
  return `branch is ${branch.status}`;
}
