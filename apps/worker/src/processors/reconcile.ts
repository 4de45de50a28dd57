import type { Database } from "@evotrainer/db";

export interface ReconcileResult {
  activeRuns: number;
  activeBranches: number;
}

const terminalBranch = ["promoted", "rejected", "vetoed", "failed", "cancelled"] as const;

/**
 * Periodic sweep over Postgres, the source of truth. It counts what is in flight; the loop's
 * steps (issue 5) hook their re-enqueueing in here so a lost Redis or a killed worker loses nothing.
 */
export async function reconcile(db: Database): Promise<ReconcileResult> {
  const [activeRuns, activeBranches] = await Promise.all([
    db.run.count({ where: { status: { in: ["pending", "running"] } } }),
    db.branch.count({ where: { status: { notIn: [...terminalBranch] }, run: { status: { in: ["pending", "running"] } } } }),
  ]);
  return { activeRuns, activeBranches };
}
