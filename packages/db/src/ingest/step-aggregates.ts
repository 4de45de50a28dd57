import type pg from "pg";

export interface StepKey {
  split: string;
  step: number;
}

/**
 * Recomputes the per-step MetricPoints (`<split>/reward_mean`, `…/dead_group_ratio`,
 * `…/label/<label>`, …) of the steps a batch touched, from the rows committed so far plus the batch's
 * own. It runs inside the batch's transaction, so the aggregates are never older or newer than the
 * rollouts and LabelStat rows they summarise: a crash between the two cannot leave a gap.
 * Dashboards and reports read these points and never scan rollouts.
 */
export async function refreshStepAggregates(client: pg.PoolClient, branchId: string, steps: readonly StepKey[]): Promise<void> {
  if (steps.length === 0) return;
  // Two ingests of one branch at once would each aggregate without the other's rows; one at a time.
  await client.query(`SELECT pg_advisory_xact_lock(hashtext('step-aggregates:' || $1))`, [branchId]);
  await client.query(
    `WITH keys AS (
       SELECT k.split::"Split" AS split, k.step FROM jsonb_to_recordset($2::jsonb) AS k(split text, step int)
     ), r AS (
       SELECT r.split, r.step, r."groupId", r.reward, r.truncated, r."responseTokens"
         FROM "Rollout" r JOIN keys USING (split, step) WHERE r."branchId" = $1
     ), g AS (
       SELECT split, step, count(*) AS n, max(reward) - min(reward) AS spread FROM r GROUP BY split, step, "groupId"
     ), per_step AS (
       SELECT split, step, count(*)::float8 AS rollouts, avg(reward)::float8 AS reward_mean,
              avg(truncated::int)::float8 AS truncation_rate, avg("responseTokens")::float8 AS response_tokens_mean
         FROM r GROUP BY split, step
     ), groups AS (
       SELECT split, step, COALESCE(avg((spread = 0)::int) FILTER (WHERE n >= 2), 0)::float8 AS dead_group_ratio
         FROM g GROUP BY split, step
     ), labels AS (
       SELECT s.split, s.step, s.label, max(s.count::float8 / NULLIF(s.total, 0)) AS rate
         FROM "LabelStat" s JOIN keys USING (split, step) WHERE s."branchId" = $1 GROUP BY s.split, s.step, s.label
     ), points AS (
       SELECT p.split, p.step, v.name, v.value
         FROM per_step p JOIN groups USING (split, step),
              LATERAL (VALUES ('reward_mean', p.reward_mean), ('truncation_rate', p.truncation_rate),
                              ('response_tokens_mean', p.response_tokens_mean), ('dead_group_ratio', groups.dead_group_ratio),
                              ('rollouts', p.rollouts)) AS v(name, value)
       UNION ALL
       SELECT split, step, 'label/' || label, COALESCE(rate, 0) FROM labels
     )
     INSERT INTO "MetricPoint" ("branchId", name, step, value)
     SELECT $1, split::text || '/' || name, step, value FROM points
     ON CONFLICT ("branchId", name, step) DO UPDATE SET value = EXCLUDED.value`,
    [branchId, JSON.stringify(steps)],
  );
}
