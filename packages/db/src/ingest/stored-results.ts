import type pg from "pg";
import type { Rollout } from "@evotrainer/contract";
import { changeStepAggregates } from "./step-aggregates.ts";

/**
 * Whether the line carries a grader's result: test results or reward components (SWE-bench's join
 * gives both, a run summary's `resolved_ids` the components alone). A line without one (a trajectory
 * imported before its results were) never overwrites a stored result.
 */
export function carriesResult(rollout: Rollout): boolean {
  return rollout.testResults !== undefined || Object.keys(rollout.rewardComponents).length > 0;
}

/**
 * Lines read again whose rows were stored before (same branch and uid): where a line carries a result
 * that differs from the stored row's, the row takes the line's reward, reward components, test
 * results and extra (which holds the report), and the step's aggregates move with it, in the
 * caller's transaction. The number of rows changed; reading the same lines again changes none.
 */
export async function updateStoredResults(client: pg.PoolClient, branchId: string, rollouts: readonly Rollout[]): Promise<number> {
  // The last line of a uid is the one that counts, as it would be had the lines come one batch each.
  const incoming = new Map<string, Rollout>();
  for (const rollout of rollouts) if (carriesResult(rollout)) incoming.set(rollout.uid, rollout);
  if (incoming.size === 0) return 0;
  const values = [...incoming.values()].map((r) => ({
    uid: r.uid,
    reward: r.reward,
    rewardComponents: r.rewardComponents,
    testResults: r.testResults ?? null,
    extra: r.extra ?? null,
  }));
  // The same lock as adding to the aggregates: the rewards read here are the ones the totals hold.
  await client.query(`SELECT pg_advisory_xact_lock(hashtext('step-aggregates:' || $1))`, [branchId]);
  const { rows } = await client.query<{ split: string; step: number; groupId: string; before: number | null; after: number | null }>(
    `WITH incoming AS (
       SELECT * FROM jsonb_to_recordset($2::jsonb) AS i(uid text, reward float8, "rewardComponents" jsonb, "testResults" jsonb, extra jsonb)
     ), changed AS (
       SELECT r.id, r.reward AS before, i.* FROM "Rollout" r JOIN incoming i ON r."branchId" = $1 AND r.uid = i.uid
        WHERE (r.reward, r."rewardComponents", r."testResults", r.extra) IS DISTINCT FROM (i.reward, i."rewardComponents", i."testResults", i.extra)
        FOR UPDATE OF r
     )
     UPDATE "Rollout" r
        SET reward = c.reward, "rewardComponents" = c."rewardComponents", "testResults" = c."testResults", extra = c.extra
       FROM changed c WHERE r.id = c.id
     RETURNING r.split::text AS split, r.step, r."groupId", c.before, r.reward AS after`,
    [branchId, JSON.stringify(values)],
  );
  await changeStepAggregates(client, branchId, rows.filter((row) => row.before !== row.after));
  return rows.length;
}
