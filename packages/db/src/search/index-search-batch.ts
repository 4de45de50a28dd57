import type { Database } from "../client.ts";
import { Prisma } from "../generated/prisma/client.ts";
import { cappedDocument, DOCUMENT_CAP, searchDocument } from "./search-document.ts";
import { settleHorizon, type SearchProgress } from "./settled-horizon.ts";

export interface SearchBatch {
  /** Rollouts whose documents this batch wrote. */
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
      const [batch] = await tx.$queryRaw<[{ indexed: number; last: bigint | null }]>`
        WITH batch AS (
          SELECT r.id, ${searchDocument} AS document FROM "Rollout" r
           WHERE r."branchId" = ${branchId} AND r.id > ${progress.indexedThrough} AND r.id <= ${settled}
           ORDER BY r.id LIMIT ${size}
        ), written AS (
          -- Nothing conflicts while the progress row is held; the clause keeps a re-run harmless anyway.
          INSERT INTO "RolloutSearch" ("rolloutId", "branchId", document, complete)
          SELECT id, ${branchId}, ${cappedDocument(Prisma.sql`document`)}, length(document) <= ${DOCUMENT_CAP} FROM batch
          ON CONFLICT DO NOTHING
        )
        SELECT count(*)::int AS indexed, max(id) AS last FROM batch`;
      const caughtUp = batch.indexed < size;
      const indexedThrough = caughtUp ? settled : batch.last!;
      await tx.$executeRaw`UPDATE "RolloutSearchProgress" SET "indexedThrough" = ${indexedThrough} WHERE "branchId" = ${branchId}`;
      return { indexed: batch.indexed, indexedThrough, caughtUp };
    },
    // A batch of long documents feeds the trigram index for a while; the default 5 s is for short steps.
    { timeout: 120_000, maxWait: 60_000 },
  );
}
