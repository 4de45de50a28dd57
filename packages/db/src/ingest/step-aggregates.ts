import type pg from "pg";

/**
 * Adds the rollouts a batch inserted (by id) to the running totals of their steps and groups
 * (StepStat, StepGroupStat) and rewrites those steps' MetricPoints (`<split>/reward_mean`,
 * `…/dead_group_ratio`, `…/label/<label>`, …) from the totals. The totals are exact (counts and a
 * decimal reward sum), so the points come out the same whichever batches the rows arrived in, and a
 * batch costs its own rows, not every row of its steps again. It runs inside the batch's
 * transaction, so the aggregates are never older or newer than the rollouts and LabelStat rows they
 * summarise. Dashboards and reports read these points and never scan rollouts.
 */
export async function addToStepAggregates(client: pg.PoolClient, branchId: string, rolloutIds: readonly bigint[]): Promise<void> {
  if (rolloutIds.length === 0) return;
  // Two ingests of one branch at once would each add to totals read before the other's; one at a time.
  await client.query(`SELECT pg_advisory_xact_lock(hashtext('step-aggregates:' || $1))`, [branchId]);
  // Named: parsed and planned once per connection, not once per batch.
  await client.query({
    name: "add-to-step-aggregates",
    text: `WITH batch AS (
       SELECT split, step, "groupId", reward, truncated, "responseTokens" FROM "Rollout" WHERE id = ANY($2::bigint[])
     ), added_groups AS (
       SELECT split, step, "groupId", count(*)::int AS rollouts, min(reward) AS lo, max(reward) AS hi
         FROM batch GROUP BY split, step, "groupId"
     ), old_groups AS (
       SELECT g.split, g.step, g."groupId", g.rollouts, g."minReward", g."maxReward"
         FROM "StepGroupStat" g JOIN added_groups USING (split, step, "groupId") WHERE g."branchId" = $1
     ), new_groups AS (
       INSERT INTO "StepGroupStat" AS g ("branchId", split, step, "groupId", rollouts, "minReward", "maxReward")
       SELECT $1, split, step, "groupId", rollouts, lo, hi FROM added_groups
       ON CONFLICT ("branchId", split, step, "groupId") DO UPDATE
         SET rollouts = g.rollouts + EXCLUDED.rollouts,
             "minReward" = LEAST(g."minReward", EXCLUDED."minReward"), "maxReward" = GREATEST(g."maxReward", EXCLUDED."maxReward")
       RETURNING split, step, "groupId", rollouts, "minReward", "maxReward"
     ), group_deltas AS (
       -- What each step gains in groups of two rollouts or more, and in dead ones among them.
       SELECT n.split, n.step,
              sum((n.rollouts >= 2)::int - COALESCE((o.rollouts >= 2)::int, 0))::int AS groups,
              sum((n.rollouts >= 2 AND n."minReward" = n."maxReward")::int
                  - COALESCE((o.rollouts >= 2 AND o."minReward" = o."maxReward")::int, 0))::int AS dead
         FROM new_groups n LEFT JOIN old_groups o USING (split, step, "groupId") GROUP BY n.split, n.step
     ), added_steps AS (
       -- numeric: an exact sum, the same whatever order and batches the rewards are added in.
       SELECT split, step, count(*)::int AS rollouts, sum(reward::numeric) AS reward_sum,
              sum(truncated::int)::int AS truncated, sum("responseTokens")::bigint AS tokens
         FROM batch GROUP BY split, step
     ), steps AS (
       INSERT INTO "StepStat" AS s ("branchId", split, step, rollouts, "rewardSum", truncated, "responseTokens", groups, "deadGroups")
       SELECT $1, a.split, a.step, a.rollouts, a.reward_sum, a.truncated, a.tokens, d.groups, d.dead
         FROM added_steps a JOIN group_deltas d USING (split, step)
       ON CONFLICT ("branchId", split, step) DO UPDATE
         SET rollouts = s.rollouts + EXCLUDED.rollouts, "rewardSum" = s."rewardSum" + EXCLUDED."rewardSum",
             truncated = s.truncated + EXCLUDED.truncated, "responseTokens" = s."responseTokens" + EXCLUDED."responseTokens",
             groups = s.groups + EXCLUDED.groups, "deadGroups" = s."deadGroups" + EXCLUDED."deadGroups"
       RETURNING split, step, rollouts, "rewardSum", truncated, "responseTokens", groups, "deadGroups"
     ), labels AS (
       SELECT s.split, s.step, s.label, max(s.count::float8 / NULLIF(s.total, 0)) AS rate
         FROM "LabelStat" s JOIN added_steps USING (split, step) WHERE s."branchId" = $1 GROUP BY s.split, s.step, s.label
     ), points AS (
       SELECT split, step, v.name, v.value
         FROM steps,
              LATERAL (VALUES ('reward_mean', ("rewardSum" / rollouts)::float8),
                              ('truncation_rate', (truncated::numeric / rollouts)::float8),
                              ('response_tokens_mean', ("responseTokens"::numeric / rollouts)::float8),
                              ('dead_group_ratio', COALESCE(("deadGroups"::numeric / NULLIF(groups, 0))::float8, 0)),
                              ('rollouts', rollouts::float8)) AS v(name, value)
       UNION ALL
       SELECT split, step, 'label/' || label, COALESCE(rate, 0) FROM labels
     )
     INSERT INTO "MetricPoint" ("branchId", name, step, value)
     SELECT $1, split::text || '/' || name, step, value FROM points
     ON CONFLICT ("branchId", name, step) DO UPDATE SET value = EXCLUDED.value`,
    values: [branchId, rolloutIds.map(String)],
  });
}
