import { isOpenBranch, SETTLED_RUN_STATUSES, type BranchStatus } from "./statuses.ts";

export interface RetentionFacts {
  bestBranchId: string | null;
  branches: readonly { id: string; status: BranchStatus; parentId: string | null }[];
  /** Parents of interventions not yet turned into branches or discarded: a branch may still start from them. */
  proposalParentIds: readonly string[];
}

export type KeepReason = "best" | "promoted" | "open" | "parent";
export type RetentionDecision =
  | { branchId: string; outcome: "keep"; reason: KeepReason }
  | { branchId: string; outcome: "delete"; status: Exclude<BranchStatus, "promoted"> };

/**
 * Which branches' model weights a run keeps. Kept: the best-so-far branch and every promoted branch
 * (the lineage a team deploys or trains on from), every branch still open (its weights may yet be
 * promoted), and any branch an open branch or a pending proposal trains from as its parent. Every
 * other branch (rejected, vetoed, failed, cancelled, and the controls, which settle as rejected) has
 * its weights deleted; its rollouts, metrics and verdict stay. The same rules hold during a run and after it.
 */
export function retentionPlan(facts: RetentionFacts): RetentionDecision[] {
  const parents = new Set(facts.proposalParentIds);
  for (const branch of facts.branches) if (branch.parentId && isOpenBranch(branch.status)) parents.add(branch.parentId);
  return facts.branches.map((branch): RetentionDecision => {
    const keep = (reason: KeepReason) => ({ branchId: branch.id, outcome: "keep" as const, reason });
    if (branch.id === facts.bestBranchId) return keep("best");
    if (branch.status === "promoted") return keep("promoted");
    if (isOpenBranch(branch.status)) return keep("open");
    if (parents.has(branch.id)) return keep("parent");
    return { branchId: branch.id, outcome: "delete", status: branch.status };
  });
}

/** The branches whose weights go. */
export function branchesToClean(facts: RetentionFacts): Set<string> {
  return new Set(retentionPlan(facts).flatMap((d) => (d.outcome === "delete" ? [d.branchId] : [])));
}

/** The worker applies the plan on its own once the run has ended; `evotrainer gc` applies it at any time. */
export const RETENTION_DUE_RUN_STATUSES = SETTLED_RUN_STATUSES;
