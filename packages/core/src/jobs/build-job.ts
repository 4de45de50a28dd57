import { jobSchema, type Job } from "@evotrainer/contract";
import { parseTrainerSettings } from "../trainer-settings.ts";
import type { RunConfig } from "../run-config.ts";

export interface JobPlan {
  jobId: string;
  kind: "train" | "eval";
  runId: string;
  branchId: string;
  branchVersion: number;
  recipe: Record<string, unknown>;
  /** Weights to start from: the parent's for training, the branch's own for evaluation. */
  checkpoint: string | undefined;
  workDir: string;
  maxSeconds: number;
  /** GPUs the job holds: 0 on a node without any, where trainers must run on the CPU. */
  gpuCount: number;
  /** Which launch of the job this is: 1, then +1 per retry (the first when absent). */
  attempt?: number;
}

/** The evo.job/v1 document for one job of a branch, validated before any trainer sees it. */
export function buildJob(config: RunConfig, plan: JobPlan): Job {
  return jobSchema.parse({
    contract: "evo.job/v1",
    runId: plan.runId,
    branchId: plan.branchId,
    jobId: plan.jobId,
    kind: plan.kind,
    domain: config.domain,
    policy: { base: config.basePolicy, ...(plan.checkpoint ? { checkpoint: plan.checkpoint } : {}) },
    recipe: plan.recipe,
    evaluation: config.evaluation,
    // Training jobs are gated on the promotion split; the sealed split is evaluated once, at the end.
    evalSplits: plan.kind === "train" ? ["promotion"] : ["sealed"],
    budget: { maxSeconds: plan.maxSeconds, ...(plan.kind === "train" ? { maxSteps: config.search.stepsPerBranch } : {}), gpuCount: plan.gpuCount },
    seed: config.seed * 10_000 + plan.branchVersion,
    attempt: plan.attempt ?? 1,
    outputDir: `${plan.workDir}/output`,
    // The run's trainer settings, validated against the adapter's schema when the run was created.
    adapter: parseTrainerSettings(config.adapter, config.trainer),
  });
}
