import type { Database } from "../client.ts";
import { Prisma, type Split } from "../generated/prisma/client.ts";

export interface RolloutSearchFilter {
  branchId: string;
  /** Matched as the explorer always has: a substring (LIKE pattern) of taskId, case-insensitively of prompt or response. */
  q: string;
  split?: Split;
  /** Leaves the sealed split out (a share link's reader). */
  notSealed?: boolean;
  step?: number;
  label?: string;
  rewardMin?: number;
  rewardMax?: number;
  /** Keyset: only ids above this one. */
  after?: bigint;
  limit: number;
}

/**
 * Ids of the first `limit` rollouts of a branch, in id order, that match `q` and the other filters.
 * Rollouts the indexer has passed are found through RolloutSearch (the trigram index for a rare
 * term, the branch's documents in id order for a common one: the planner weighs the two); capped
 * documents and rollouts not yet indexed are matched on their own text. Each candidate is checked
 * on "Rollout" with the explorer's own condition, so the answer is the same wherever a row stands.
 */
export async function searchRolloutIds(db: Database, filter: RolloutSearchFilter): Promise<bigint[]> {
  const progress = await db.rolloutSearchProgress.findUnique({ where: { branchId: filter.branchId }, select: { indexedThrough: true } });
  const indexedThrough = progress?.indexedThrough ?? 0n;
  const pattern = Prisma.sql`('%' || ${filter.q} || '%')`;
  const after = filter.after ?? 0n;
  const conditions = [
    Prisma.sql`r."branchId" = ${filter.branchId}`,
    Prisma.sql`(r."taskId" LIKE ${pattern} OR r.prompt ILIKE ${pattern} OR r.response ILIKE ${pattern})`,
    ...(filter.split ? [Prisma.sql`r.split = ${filter.split}::"Split"`] : []),
    ...(filter.notSealed ? [Prisma.sql`r.split <> 'sealed'::"Split"`] : []),
    ...(filter.step !== undefined ? [Prisma.sql`r.step = ${filter.step}`] : []),
    ...(filter.rewardMin !== undefined ? [Prisma.sql`r.reward >= ${filter.rewardMin}`] : []),
    ...(filter.rewardMax !== undefined ? [Prisma.sql`r.reward <= ${filter.rewardMax}`] : []),
    ...(filter.label
      ? [Prisma.sql`EXISTS (SELECT 1 FROM "RolloutLabel" l WHERE l."branchId" = ${filter.branchId} AND l.label = ${filter.label} AND l."rolloutId" = r.id)`]
      : []),
  ];
  const onRollout = Prisma.join(conditions, " AND ");
  const indexed = (documents: Prisma.Sql) => Prisma.sql`
    (SELECT s."rolloutId" AS id FROM "RolloutSearch" s JOIN "Rollout" r ON r.id = s."rolloutId"
      WHERE s."branchId" = ${filter.branchId} AND s."rolloutId" > ${after} AND s."rolloutId" <= ${indexedThrough} AND ${documents} AND ${onRollout}
      ORDER BY s."rolloutId" LIMIT ${filter.limit})`;
  const rows = await db.$queryRaw<{ id: bigint }[]>`
    SELECT id FROM (
      ${indexed(Prisma.sql`s.complete AND s.document LIKE lower(${pattern})`)}
      UNION ALL
      ${indexed(Prisma.sql`NOT s.complete`)}
      UNION ALL
      (SELECT r.id FROM "Rollout" r WHERE r.id > ${after > indexedThrough ? after : indexedThrough} AND ${onRollout} ORDER BY r.id LIMIT ${filter.limit})
    ) matched
    ORDER BY id LIMIT ${filter.limit}`;
  return rows.map((row) => row.id);
}
