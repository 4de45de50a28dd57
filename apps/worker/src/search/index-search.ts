import { indexBranchSearch, type Database } from "@evotrainer/db";
import type { Payload, QueueName } from "@evotrainer/queue";

/** The search step: the branch's settled rollouts into its search index (packages/db's search). */
export async function indexSearch(db: Database, payload: Payload<typeof QueueName.Search>): Promise<{ indexed: number; indexedThrough: string }> {
  const { indexed, indexedThrough } = await indexBranchSearch(db, payload.branchId);
  // A job's return value is stored as JSON, which has no bigint.
  return { indexed, indexedThrough: String(indexedThrough) };
}
