import type { Job } from "@evotrainer/contract";
import type { VerlJobSettings } from "./verl-job-settings.ts";

/**
 * How many nodes a verl job spans (`job.adapter.nnodes`, 1 by default). verl places the same
 * number of GPUs on every node (`trainer.n_gpus_per_node`), so the job's GPUs must split evenly.
 */
export function verlNodes(job: Job): { nnodes: number; gpusPerNode: number } {
  const nnodes = (job.adapter as VerlJobSettings).nnodes ?? 1;
  if (!Number.isSafeInteger(nnodes) || nnodes < 1) throw new RangeError(`job.adapter.nnodes must be a positive integer, got ${JSON.stringify(nnodes)}`);
  if (job.budget.gpuCount % nnodes !== 0) {
    throw new RangeError(`a verl job's ${job.budget.gpuCount} GPUs do not split evenly over ${nnodes} nodes (trainer.n_gpus_per_node is the same on every node)`);
  }
  return { nnodes, gpusPerNode: job.budget.gpuCount / nnodes };
}
