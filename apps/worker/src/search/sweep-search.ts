import { branchesLaggingSearch, type Database } from "@evotrainer/db";
import { QueueName, type Producer } from "@evotrainer/queue";

/**
 * Part of the reconcile sweep: enqueues the search step of every branch whose rollouts are past its
 * search progress (an ingest whose enqueue was lost, a CLI import straight into the database, rows
 * committed while the step ran). Returns how many it enqueued.
 */
export async function sweepSearch(db: Database, producer: Producer): Promise<number> {
  const branches = await branchesLaggingSearch(db);
  for (const branchId of branches) await producer.enqueue(QueueName.Search, { branchId });
  return branches.length;
}
