import type { Database } from "../client.ts";
import { indexSearchBatch } from "./index-search-batch.ts";

/**
 * Indexes a branch's rollouts batch by batch until it has caught up with what has settled; returns
 * how many it indexed and how far the branch's search now reaches. Rollouts committed meanwhile are
 * left to the next run (enqueued by their ingest, or by the reconcile sweep).
 */
export async function indexBranchSearch(db: Database, branchId: string, batchSize?: number): Promise<{ indexed: number; indexedThrough: bigint }> {
  let indexed = 0;
  for (;;) {
    const batch = await indexSearchBatch(db, branchId, batchSize);
    indexed += batch.indexed;
    if (batch.caughtUp) return { indexed, indexedThrough: batch.indexedThrough };
  }
}
