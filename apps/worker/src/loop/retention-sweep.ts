import { branchesToClean } from "@evotrainer/core";
import { loadRetentionState, recordRetention, runsDueForRetention, type Database } from "@evotrainer/db";
import { deleteWeights, weightsToDelete } from "@evotrainer/executors";

/**
 * The retention policy applied to every run that ended since the last sweep: weights of branches
 * that were neither promoted nor best are deleted, and the run gets one `retention_applied` event
 * (also when nothing was deleted: it marks the run as done).
 */
export async function retainWeightsOfEndedRuns(db: Database, log: (line: string) => void): Promise<number> {
  let bytes = 0;
  for (const runId of await runsDueForRetention(db)) {
    const state = (await loadRetentionState(db, runId))!;
    const { local, elsewhere } = await weightsToDelete(state.jobs, branchesToClean(state.facts));
    for (const weights of local) await deleteWeights(weights);
    if (!(await recordRetention(db, { runId, trigger: "run_end", actor: "system", deleted: local, elsewhere }))) continue;
    const freed = local.reduce((sum, w) => sum + w.bytes, 0);
    if (local.length > 0) log(`worker: retention deleted ${local.length} weight files or directories of run ${runId} (${freed} bytes)`);
    bytes += freed;
  }
  return bytes;
}
