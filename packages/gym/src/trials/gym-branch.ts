import { jobSchema, rolloutSchema, type Job, type Rollout } from "@evotrainer/contract";
import { buildJob, FINAL_TRAIN_STEPS, type Recipe, type RunConfig } from "@evotrainer/core";
import { basePolicy } from "../domains.ts";
import { evaluateSplit } from "../evaluate.ts";
import { resolveSetup } from "../gym-config.ts";
import type { Policy } from "../policy.ts";
// The gym writes training rows with this function; trials keep the very same rows.
import { rolloutRow } from "../rollout-rows.ts";
import { createTraining } from "../training.ts";

export interface GymBranchInput {
  config: RunConfig;
  runId: string;
  branchId: string;
  version: number;
  recipe: Recipe;
  /** The parent's trained policy (its checkpoint, in the real loop); the base policy for v0. */
  start?: Policy;
  /**
   * A test-sized override of the gym's adapter knobs (job.adapter: batch shape only, never a
   * recipe factor); absent, the job carries the run's trainer settings exactly as the worker sends them.
   */
  adapter?: Record<string, unknown>;
}

export interface TrainedGymBranch {
  job: Job;
  policy: Policy;
  /** Trainer metrics per step (metrics.jsonl), step 1 first. */
  steps: Record<string, number>[];
  /** Training rollouts of the last FINAL_TRAIN_STEPS steps, as contract rows. */
  train: Rollout[];
  /** The promotion split's rollouts under the locked grader, and the gym's own score. */
  promotion: Rollout[];
  promotionScore: number;
}

/**
 * One branch's training job, in memory: the evo.job/v1 document the control plane would write
 * (buildJob), resolved and run like trainer.ts runs a job.json, minus the files.
 */
export function trainGymBranch(input: GymBranchInput): TrainedGymBranch {
  const { config } = input;
  // The job document the worker writes (buildJob), with a test's adapter override when given.
  const built = buildJob(config, {
    jobId: `${input.branchId}-train`,
    kind: "train",
    runId: input.runId,
    branchId: input.branchId,
    branchVersion: input.version,
    recipe: input.recipe,
    checkpoint: input.start ? `memory:${input.branchId}/parent` : undefined,
    workDir: `memory:${input.branchId}`,
    maxSeconds: 600,
    gpuCount: 0,
  });
  const job = jobSchema.parse(input.adapter ? { ...built, adapter: input.adapter } : built);
  const setup = resolveSetup(job);
  // A child starts from a copy of its parent's weights; the parent's own policy stays as it was.
  const start = input.start ? { ...input.start, params: Float64Array.from(input.start.params) } : basePolicy(setup.domain);
  const training = createTraining({ domain: setup.domain, recipe: setup.recipe, seed: job.seed, ...setup.options }, start);
  const maxSteps = job.budget.maxSteps!;
  const steps: Record<string, number>[] = [];
  const train: Rollout[] = [];
  for (let step = 1; step <= maxSteps; step++) {
    const result = training.runStep(step);
    steps.push(result.metrics);
    if (step > maxSteps - FINAL_TRAIN_STEPS) {
      for (const [k, group] of result.batch.entries()) {
        for (const s of group) train.push(rolloutSchema.parse(rolloutRow("train", step, `${step}-${k}-${s.task.id}`, s)));
      }
    }
  }
  const evaluation = evaluateSplit(training.policy, "promotion", job.evaluation.promotion, job.evaluation.seed, maxSteps);
  return {
    job,
    policy: training.policy,
    steps,
    train,
    promotion: evaluation.rows.map((r) => rolloutSchema.parse(r)),
    promotionScore: evaluation.result.score,
  };
}
