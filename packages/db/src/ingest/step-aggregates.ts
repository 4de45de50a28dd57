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
       -- count(reward), min and max skip the rollouts without a known result.
       SELECT split, step, "groupId", count(reward)::int AS rewarded, min(reward) AS lo, max(reward) AS hi
         FROM batch GROUP BY split, step, "groupId"
     ), old_groups AS (
       SELECT g.split, g.step, g."groupId", g.rewarded, g."minReward", g."maxReward"
         FROM "StepGroupStat" g JOIN added_groups USING (split, step, "groupId") WHERE g."branchId" = $1
     ), new_groups AS (
       INSERT INTO "StepGroupStat" AS g ("branchId", split, step, "groupId", rewarded, "minReward", "maxReward")
       SELECT $1, split, step, "groupId", rewarded, lo, hi FROM added_groups
       ON CONFLICT ("branchId", split, step, "groupId") DO UPDATE
         SET rewarded = g.rewarded + EXCLUDED.rewarded,
             "minReward" = LEAST(g."minReward", EXCLUDED."minReward"), "maxReward" = GREATEST(g."maxReward", EXCLUDED."maxReward")
       RETURNING split, step, "groupId", rewarded, "minReward", "maxReward"
     ), group_deltas AS (
       -- What each step gains in groups of two rewarded rollouts or more, and in dead ones among them.
       SELECT n.split, n.step,
              sum((n.rewarded >= 2)::int - COALESCE((o.rewarded >= 2)::int, 0))::int AS groups,
              sum((n.rewarded >= 2 AND n."minReward" = n."maxReward")::int
                  - COALESCE((o.rewarded >= 2 AND o."minReward" = o."maxReward")::int, 0))::int AS dead
         FROM new_groups n LEFT JOIN old_groups o USING (split, step, "groupId") GROUP BY n.split, n.step
     ), added_steps AS (
       -- numeric: an exact sum, the same whatever order and batches the rewards are added in.
       SELECT split, step, count(*)::int AS rollouts, count(reward)::int AS rewarded, COALESCE(sum(reward::numeric), 0) AS reward_sum,
              sum(truncated::int)::int AS truncated, sum("responseTokens")::bigint AS tokens
         FROM batch GROUP BY split, step
     ), steps AS (
       INSERT INTO "StepStat" AS s ("branchId", split, step, rollouts, rewarded, "rewardSum", truncated, "responseTokens", groups, "deadGroups")
       SELECT $1, a.split, a.step, a.rollouts, a.rewarded, a.reward_sum, a.truncated, a.tokens, d.groups, d.dead
         FROM added_steps a JOIN group_deltas d USING (split, step)
       ON CONFLICT ("branchId", split, step) DO UPDATE
         SET rollouts = s.rollouts + EXCLUDED.rollouts, rewarded = s.rewarded + EXCLUDED.rewarded, "rewardSum" = s."rewardSum" + EXCLUDED."rewardSum",
             truncated = s.truncated + EXCLUDED.truncated, "responseTokens" = s."responseTokens" + EXCLUDED."responseTokens",
             groups = s.groups + EXCLUDED.groups, "deadGroups" = s."deadGroups" + EXCLUDED."deadGroups"
       RETURNING split, step, rollouts, rewarded, "rewardSum", truncated, "responseTokens", groups, "deadGroups"
     ), labels AS (
       SELECT s.split, s.step, s.label, max(s.count::float8 / NULLIF(s.total, 0)) AS rate
         FROM "LabelStat" s JOIN added_steps USING (split, step) WHERE s."branchId" = $1 GROUP BY s.split, s.step, s.label
     ), points AS (
       SELECT split, step, v.name, v.value
         FROM steps,
              LATERAL (VALUES ('reward_mean', ("rewardSum" / NULLIF(rewarded, 0))::float8),
                              ('truncation_rate', (truncated::numeric / rollouts)::float8),
                              ('response_tokens_mean', ("responseTokens"::numeric / rollouts)::float8),
                              ('dead_group_ratio', COALESCE(("deadGroups"::numeric / NULLIF(groups, 0))::float8, 0)),
                              ('rollouts', rollouts::float8)) AS v(name, value)
       UNION ALL
       SELECT split, step, 'label/' || label, COALESCE(rate, 0) FROM labels
     )
     -- A step none of whose rollouts has a known result has no reward_mean point.
     INSERT INTO "MetricPoint" ("branchId", name, step, value)
     SELECT $1, split::text || '/' || name, step, value FROM points WHERE value IS NOT NULL
     ON CONFLICT ("branchId", name, step) DO UPDATE SET value = EXCLUDED.value`,
    values: [branchId, rolloutIds.map(String)],
  });
}

/** A stored rollout whose reward changed (its result joined on a re-import): where it is, and the reward before and after (null: unknown). */
export interface RewardChange {
  split: string;
  step: number;
  groupId: string;
  before: number | null;
  after: number | null;
}

/**
 * Moves the aggregates of the steps whose stored rewards changed, in the caller's transaction: each
 * step's reward sum and count of known rewards by the exact difference, each changed group's known
 * rewards from its rows (a group is a task's few samples), the step's groups and dead groups by the
 * groups that changed, and the step's `reward_mean` and `dead_group_ratio` points from the new totals.
 */
export async function changeStepAggregates(client: pg.PoolClient, branchId: string, changes: readonly RewardChange[]): Promise<void> {
  if (changes.length === 0) return;
  await client.query(`SELECT pg_advisory_xact_lock(hashtext('step-aggregates:' || $1))`, [branchId]);
  await client.query(
    `WITH changes AS (
       SELECT c.split::"Split" AS split, c.step, c."groupId", c.before, c.after
         FROM jsonb_to_recordset($2::jsonb) AS c(split text, step int, "groupId" text, before float8, after float8)
     ), changed_groups AS (
       SELECT DISTINCT split, step, "groupId" FROM changes
     ), fresh AS (
       SELECT r.split, r.step, r."groupId", count(r.reward)::int AS rewarded, min(r.reward) AS lo, max(r.reward) AS hi
         FROM "Rollout" r JOIN changed_groups g ON r.split = g.split AND r.step = g.step AND r."groupId" = g."groupId"
        WHERE r."branchId" = $1 GROUP BY r.split, r.step, r."groupId"
     ), old_groups AS (
       SELECT g.split, g.step, g."groupId", g.rewarded, g."minReward", g."maxReward"
         FROM "StepGroupStat" g JOIN changed_groups USING (split, step, "groupId") WHERE g."branchId" = $1
     ), new_groups AS (
       UPDATE "StepGroupStat" g SET rewarded = f.rewarded, "minReward" = f.lo, "maxReward" = f.hi
         FROM fresh f WHERE g."branchId" = $1 AND g.split = f.split AND g.step = f.step AND g."groupId" = f."groupId"
       RETURNING g.split, g.step, g."groupId", g.rewarded, g."minReward", g."maxReward"
     ), group_deltas AS (
       -- COALESCE: a group whose rewards were all unknown was neither counted nor dead.
       SELECT n.split, n.step,
              sum((n.rewarded >= 2)::int - (o.rewarded >= 2)::int)::int AS groups,
              sum(COALESCE((n.rewarded >= 2 AND n."minReward" = n."maxReward")::int, 0)
                  - COALESCE((o.rewarded >= 2 AND o."minReward" = o."maxReward")::int, 0))::int AS dead
         FROM new_groups n JOIN old_groups o USING (split, step, "groupId") GROUP BY n.split, n.step
     ), reward_deltas AS (
       -- The same casts as the sums added: the totals stay what a recount of the rows gives.
       SELECT split, step, sum(COALESCE(after::numeric, 0) - COALESCE(before::numeric, 0)) AS delta,
              sum((after IS NOT NULL)::int - (before IS NOT NULL)::int)::int AS rewarded
         FROM changes GROUP BY split, step
     ), steps AS (
       UPDATE "StepStat" s SET "rewardSum" = s."rewardSum" + r.delta, rewarded = s.rewarded + r.rewarded,
              groups = s.groups + COALESCE(d.groups, 0), "deadGroups" = s."deadGroups" + COALESCE(d.dead, 0)
         FROM reward_deltas r LEFT JOIN group_deltas d USING (split, step)
        WHERE s."branchId" = $1 AND s.split = r.split AND s.step = r.step
       RETURNING s.split, s.step, s.rewarded, s."rewardSum", s.groups, s."deadGroups"
     ), points AS (
       SELECT split, step, v.name, v.value
         FROM steps,
              LATERAL (VALUES ('reward_mean', ("rewardSum" / NULLIF(rewarded, 0))::float8),
                              ('dead_group_ratio', COALESCE(("deadGroups"::numeric / NULLIF(groups, 0))::float8, 0))) AS v(name, value)
     )
     INSERT INTO "MetricPoint" ("branchId", name, step, value)
     SELECT $1, split::text || '/' || name, step, value FROM points WHERE value IS NOT NULL
     ON CONFLICT ("branchId", name, step) DO UPDATE SET value = EXCLUDED.value`,
    [branchId, JSON.stringify(changes)],
  );
}
