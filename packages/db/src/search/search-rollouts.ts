import type { Database } from "../client.ts";
import { Prisma, type Split } from "../generated/prisma/client.ts";
import { containsPattern } from "./like-pattern.ts";

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
 * Rollouts the indexer has passed are matched on RolloutSearch (its trigram index for a rare term,
 * the branch's rows in id order for a common one: the planner weighs the two); rollouts whose text
 * was capped there, and those not indexed yet, on their own text. The three give the rows that the
 * ILIKE over "Rollout" gives, wherever a row stands.
 */
export async function searchRolloutIds(db: Database, filter: RolloutSearchFilter): Promise<bigint[]> {
  const progress = await db.rolloutSearchProgress.findUnique({ where: { branchId: filter.branchId }, select: { indexedThrough: true } });
  const indexedThrough = progress?.indexedThrough ?? 0n;
  const after = filter.after ?? 0n;
  const where = (conditions: Prisma.Sql[]) => Prisma.join(conditions, " AND ");
  const pattern = Prisma.sql`${containsPattern(filter.q)}::text`;
  const rollouts = Prisma.sql`r."branchId" = ${filter.branchId}`;
  const split = (t: "r" | "s" | "l") => [
    ...(filter.split ? [Prisma.sql`${Prisma.raw(t)}.split = ${filter.split}::"Split"`] : []),
    ...(filter.notSealed ? [Prisma.sql`${Prisma.raw(t)}.split <> 'sealed'::"Split"`] : []),
  ];
  const step = (t: "r" | "s") => (filter.step !== undefined ? [Prisma.sql`${Prisma.raw(t)}.step = ${filter.step}`] : []);
  // What RolloutSearch does not hold.
  const onRollout = [
    ...(filter.rewardMin !== undefined ? [Prisma.sql`r.reward >= ${filter.rewardMin}`] : []),
    ...(filter.rewardMax !== undefined ? [Prisma.sql`r.reward <= ${filter.rewardMax}`] : []),
  ];
  // The label's row carries its rollout's step and split: said here too, the planner sees how few
  // rollouts have the label at that step and can start from them, not from a common term.
  const labelled = (id: Prisma.Sql) =>
    filter.label
      ? [
          Prisma.sql`EXISTS (SELECT 1 FROM "RolloutLabel" l WHERE ${where([
            Prisma.sql`l."branchId" = ${filter.branchId}`,
            Prisma.sql`l.label = ${filter.label}`,
            ...(filter.step !== undefined ? [Prisma.sql`l.step = ${filter.step}`] : []),
            ...split("l"),
            Prisma.sql`l."rolloutId" = ${id}`,
          ])})`,
        ]
      : [];
  const ownText = Prisma.sql`(r."taskId" LIKE ${pattern} OR r.prompt ILIKE ${pattern} OR r.response ILIKE ${pattern})`;

  // Indexed whole: RolloutSearch alone answers the text, the split and the step (the step and the
  // term in one scan of its trigram index); "Rollout" is joined only for the reward.
  const complete = Prisma.sql`
    (SELECT s."rolloutId" AS id FROM "RolloutSearch" s ${onRollout.length ? Prisma.sql`JOIN "Rollout" r ON r.id = s."rolloutId"` : Prisma.empty}
      WHERE ${where([
        Prisma.sql`s."branchId" = ${filter.branchId}`,
        Prisma.sql`s.complete`,
        Prisma.sql`s."rolloutId" > ${after}`,
        Prisma.sql`(s."taskId" LIKE ${pattern} OR s.prompt LIKE lower(${pattern}) OR s.response LIKE lower(${pattern}))`,
        ...split("s"),
        ...step("s"),
        ...(onRollout.length ? [rollouts, ...onRollout] : []),
        ...labelled(Prisma.sql`s."rolloutId"`),
      ])}
      ORDER BY s."rolloutId" LIMIT ${filter.limit})`;
  // Indexed with a text capped: their own text decides.
  const capped = Prisma.sql`
    (SELECT s."rolloutId" AS id FROM "RolloutSearch" s JOIN "Rollout" r ON r.id = s."rolloutId"
      WHERE ${where([Prisma.sql`s."branchId" = ${filter.branchId}`, Prisma.sql`NOT s.complete`, Prisma.sql`s."rolloutId" > ${after}`, rollouts, ownText, ...split("r"), ...step("r"), ...onRollout, ...labelled(Prisma.sql`r.id`)])}
      ORDER BY s."rolloutId" LIMIT ${filter.limit})`;
  // Past the progress: no more than the indexing lag (what ingest added since the indexer last ran).
  const notIndexed = Prisma.sql`
    (SELECT r.id FROM "Rollout" r
      WHERE ${where([
        rollouts,
        Prisma.sql`r.id > ${after > indexedThrough ? after : indexedThrough}`,
        ownText,
        ...split("r"),
        ...step("r"),
        ...onRollout,
        ...labelled(Prisma.sql`r.id`),
      ])}
      ORDER BY r.id LIMIT ${filter.limit})`;
  // No upper bound on the indexed side: RolloutSearch spans every branch, so "rolloutId <= progress"
  // would look selective to the planner and steer a common term away from the in-order walk. A row
  // the indexer adds meanwhile comes from two sides, and UNION keeps it once.
  const rows = await db.$queryRaw<{ id: bigint }[]>`
    SELECT id FROM (${complete} UNION ${capped} UNION ${notIndexed}) matched ORDER BY id LIMIT ${filter.limit}`;
  return rows.map((row) => row.id);
}
