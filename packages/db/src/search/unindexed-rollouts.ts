import type { Database } from "../client.ts";

/** Counted up to this many: past it the explorer says "more than", and the count stays a short index scan. */
export const UNINDEXED_COUNT_LIMIT = 100_000;

/**
 * How many of a branch's rollouts the search index has not reached yet (the text search scans those
 * directly), up to UNINDEXED_COUNT_LIMIT. `notSealed` leaves the sealed split out of the count.
 */
export async function unindexedRollouts(db: Database, branchId: string, notSealed: boolean): Promise<number> {
  const progress = await db.rolloutSearchProgress.findUnique({ where: { branchId }, select: { indexedThrough: true } });
  return db.rollout.count({
    where: { branchId, id: { gt: progress?.indexedThrough ?? 0n }, ...(notSealed ? { split: { not: "sealed" } } : {}) },
    take: UNINDEXED_COUNT_LIMIT,
  });
}
