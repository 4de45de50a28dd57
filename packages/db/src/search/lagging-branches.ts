import type { Database } from "../client.ts";

/**
 * Branches with rollouts past their search progress: each probes its newest rollout through the
 * (branchId, id) index, so the sweep costs one seek per branch, not a scan of the rollouts.
 */
export async function branchesLaggingSearch(db: Database): Promise<string[]> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT b.id FROM "Branch" b
      LEFT JOIN "RolloutSearchProgress" p ON p."branchId" = b.id
     WHERE (SELECT max(r.id) FROM "Rollout" r WHERE r."branchId" = b.id) > coalesce(p."indexedThrough", 0)`;
  return rows.map((row) => row.id);
}
