import type { Database } from "../client.ts";
import { Prisma } from "../generated/prisma/client.ts";
import { cappedText, uncapped } from "./search-document.ts";
import { settleHorizon, type SearchProgress } from "./settled-horizon.ts";

export interface SearchBatch {
  /** Rollouts this batch indexed. */
  indexed: number;
  indexedThrough: bigint;
  /** Nothing settled is left to index; rollouts still being written are left to a later run. */
  caughtUp: boolean;
}

/**
 * The one writer of RolloutSearch: indexes the next `size` rollouts of a branch past its progress,
 * in id order, and moves the progress in the same transaction. Two indexers of a branch queue on
 * its progress row; a killed one rolls its batch back and the next starts where it stood.
 */
export async function indexSearchBatch(db: Database, branchId: string, size = 500): Promise<SearchBatch> {
  return db.$transaction(
    async (tx) => {
      await tx.$executeRaw`INSERT INTO "RolloutSearchProgress" ("branchId") VALUES (${branchId}) ON CONFLICT DO NOTHING`;
      const [progress] = await tx.$queryRaw<[SearchProgress]>`
        SELECT "indexedThrough", "settledThrough", "observedThrough", "observedWriters"
          FROM "RolloutSearchProgress" WHERE "branchId" = ${branchId} FOR UPDATE`;
      const settled = await settleHorizon(tx, branchId, progress);
      // The texts lower-cased here: the search matches `lower(pattern)` against them, which is ILIKE.
      const [batch] = await tx.$queryRaw<[{ indexed: number; last: bigint | null }]>`
        WITH batch AS (
          SELECT r.id, r.split, r.step, r."taskId", lower(r.prompt) AS prompt, lower(r.response) AS response FROM "Rollout" r
           WHERE r."branchId" = ${branchId} AND r.id > ${progress.indexedThrough} AND r.id <= ${settled}
           ORDER BY r.id LIMIT ${size}
        ), written AS (
          -- Nothing conflicts while the progress row is held; the clause keeps a re-run harmless anyway.
          INSERT INTO "RolloutSearch" ("rolloutId", "branchId", split, step, "taskId", prompt, response, complete)
          SELECT id, ${branchId}, split, step, "taskId", ${cappedText(Prisma.sql`prompt`)}, ${cappedText(Prisma.sql`response`)},
                 ${uncapped(Prisma.sql`prompt`)} AND ${uncapped(Prisma.sql`response`)}
            FROM batch
          ON CONFLICT DO NOTHING
        )
        SELECT count(*)::int AS indexed, max(id) AS last FROM batch`;
      const caughtUp = batch.indexed < size;
      // Caught up, the branch is indexed through the settled horizon, the end of the id sequence when
      // nobody writes: the search's scan of the rows past it then reads only what came since.
      const indexedThrough = caughtUp ? settled : batch.last!;
      await tx.$executeRaw`UPDATE "RolloutSearchProgress" SET "indexedThrough" = ${indexedThrough} WHERE "branchId" = ${branchId}`;
      return { indexed: batch.indexed, indexedThrough, caughtUp };
    },
    // A batch of long documents feeds the trigram index for a while; the default 5 s is for short steps.
    { timeout: 120_000, maxWait: 60_000 },
  );
}
