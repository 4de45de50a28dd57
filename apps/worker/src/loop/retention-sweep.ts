import { branchesToClean } from "@evotrainer/core";
import { loadRetentionState, recordRetention, runsDueForRetention, type Database } from "@evotrainer/db";
import { weightsToDelete, type JobWeights, type WeightsJob, type WeightsPlace } from "@evotrainer/executors";

/**
 * The retention policy applied to every run that ended since the last sweep: weights of branches
 * that were neither promoted nor best are deleted wherever their jobs ran (this machine, an SSH node,
 * a Kubernetes volume), and the run gets one `retention_applied` event (also when nothing was
 * deleted: it marks the run as done). Jobs out of reach are recorded as such, for `evotrainer gc`.
 */
export async function retainWeightsOfEndedRuns(db: Database, open: (job: WeightsJob) => Promise<WeightsPlace>, log: (line: string) => void): Promise<number> {
  let bytes = 0;
  for (const runId of await runsDueForRetention(db)) {
    const state = (await loadRetentionState(db, runId))!;
    const { found, elsewhere } = await weightsToDelete(state.jobs, branchesToClean(state.facts), open);
    const deleted: JobWeights[] = [];
    for (const { weights, remove } of found) {
      try {
        await remove();
        deleted.push(weights);
      } catch (error) {
        elsewhere.push({ branchId: weights.branchId, branchVersion: weights.branchVersion, jobId: weights.jobId, where: `${weights.where}:${weights.path}`, why: (error as Error).message });
      }
    }
    if (!(await recordRetention(db, { runId, trigger: "run_end", actor: "system", deleted, elsewhere }))) continue;
    const freed = deleted.reduce((sum, w) => sum + w.bytes, 0);
    if (deleted.length > 0) log(`worker: retention deleted ${deleted.length} weight files or directories of run ${runId} (${freed} bytes)`);
    for (const w of elsewhere) log(`worker: retention could not reach the weights of run ${runId} v${w.branchVersion} on ${w.where} (${w.why}); \`evotrainer gc ${runId} --yes\` deletes them once they can be reached`);
    bytes += freed;
  }
  return bytes;
}
