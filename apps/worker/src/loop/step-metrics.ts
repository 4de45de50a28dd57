import type { Database, Split } from "@evotrainer/db";

/**
 * Per-step aggregates of one split, computed at ingest from that step's rows (one index range) so
 * that dashboards and reports read MetricPoints and never scan rollouts.
 */
export async function refreshStepMetrics(db: Database, branchId: string, split: Split, step: number): Promise<void> {
  const [row] = await db.$queryRaw<
    { rollouts: bigint; reward_mean: number; truncation_rate: number; response_tokens_mean: number; groups: bigint; dead_groups: bigint }[]
  >`
    WITH r AS (
      SELECT "groupId", reward, truncated, "responseTokens" FROM "Rollout"
       WHERE "branchId" = ${branchId} AND split = ${split}::"Split" AND step = ${step}
    ), g AS (
      SELECT "groupId", count(*) AS n, max(reward) - min(reward) AS spread FROM r GROUP BY "groupId"
    )
    SELECT (SELECT count(*) FROM r) AS rollouts,
           (SELECT avg(reward) FROM r)::float8 AS reward_mean,
           (SELECT avg(truncated::int) FROM r)::float8 AS truncation_rate,
           (SELECT avg("responseTokens") FROM r)::float8 AS response_tokens_mean,
           (SELECT count(*) FROM g WHERE n >= 2) AS groups,
           (SELECT count(*) FROM g WHERE n >= 2 AND spread = 0) AS dead_groups`;
  if (!row || row.rollouts === 0n) return;
  const labelRates = await db.labelStat.findMany({ where: { branchId, split, step }, select: { label: true, count: true, total: true } });
  const values: Record<string, number> = {
    reward_mean: row.reward_mean,
    truncation_rate: row.truncation_rate,
    response_tokens_mean: row.response_tokens_mean,
    dead_group_ratio: row.groups > 0n ? Number(row.dead_groups) / Number(row.groups) : 0,
    rollouts: Number(row.rollouts),
  };
  for (const stat of labelRates) values[`label/${stat.label}`] = stat.total > 0 ? stat.count / stat.total : 0;
  await db.$transaction(
    Object.entries(values).map(([name, value]) =>
      db.metricPoint.upsert({
        where: { branchId_name_step: { branchId, name: `${split}/${name}`, step } },
        update: { value },
        create: { branchId, name: `${split}/${name}`, step, value },
      }),
    ),
  );
}
