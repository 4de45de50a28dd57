import type { LineageEntry } from "@evotrainer/core";
import type { LoopBranch } from "./in-memory-loop.ts";

/** Every settled branch as a proposer sees it (apps/worker/src/loop/lineage.ts): what was tried, how it was judged, the decision. */
export function lineageOf(branches: readonly LoopBranch[]): LineageEntry[] {
  return branches.map((b) => ({
    branchId: b.id,
    ...(b.parentId !== undefined ? { parentBranchId: b.parentId } : {}),
    recipeHash: b.recipeHash,
    ...(b.intervention ? { intervention: b.intervention } : {}),
    verdict: b.verdict,
    decisions: [b.decision],
  }));
}
