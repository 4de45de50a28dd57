import { dryRender, type TrainerAdapter } from "@evotrainer/adapters";
import { buildJob, type RenderCheck, type RunConfig } from "@evotrainer/core";

/**
 * The run's trainer answering "does a branch of this recipe render?": the job a child branch would
 * get (its parent's checkpoint, the run's settings), rendered by the run's adapter without launching.
 */
export function renderCheck(adapter: TrainerAdapter, config: RunConfig, branch: { runId: string; parentBranchId: string; checkpoint: string | undefined }): RenderCheck {
  return (recipe) =>
    dryRender(
      adapter,
      buildJob(config, {
        jobId: "dry-run",
        kind: "train",
        runId: branch.runId,
        branchId: `${branch.parentBranchId}/dry-run`,
        branchVersion: 0,
        recipe: recipe as unknown as Record<string, unknown>,
        checkpoint: branch.checkpoint,
        workDir: "/dry-run",
        maxSeconds: config.budget.gpuSeconds,
        gpuCount: config.resources.gpusPerJob,
      }),
    );
}
