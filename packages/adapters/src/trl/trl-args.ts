import { posix } from "node:path";
import type { Job } from "@evotrainer/contract";
import type { Recipe } from "@evotrainer/core";
import { UnsupportedFactorError } from "../unsupported-factor.ts";

/** A JSON value, as TRL's YAML config holds it. */
export type TrlValue = string | number | boolean | null | readonly TrlValue[] | { readonly [key: string]: TrlValue };

/** Settings of `job.adapter` the TRL adapter reads (all optional). */
export interface TrlJobSettings {
  /** `dataset_name`: a Hub dataset id or a local path. */
  dataset?: string;
  /** `reward_funcs`: names of TRL's reward functions or `module.function` paths, one per recipe component. */
  rewardFuncs?: string[];
  /** Further `trl grpo` arguments, verbatim, applied last. */
  args?: Record<string, TrlValue>;
}

// verl's loss aggregation names as TRL's loss_type (trl/trainer/grpo_trainer.py, _compute_loss):
// "dapo" normalises by all tokens of the global batch, "grpo" is per-sequence token mean,
// "dr_grpo" divides token sums by max_completion_length.
const LOSS_TYPE: Partial<Record<Recipe["algo"]["lossAggregation"], string>> = {
  "token-mean": "dapo",
  "seq-mean-token-mean": "grpo",
  "seq-mean-token-sum-norm": "dr_grpo",
};

/** Where TRL writes inside a job's output dir; `log_completions` puts parquet files under `completions/`. */
export function trlPaths(outputDir: string) {
  const root = posix.join(outputDir, "trl");
  return { outputDir: root, completionsDir: posix.join(root, "completions") };
}

/**
 * `GRPOConfig` arguments (TRL ≥ 0.22 names) for a job: the recipe's factors, the job's model,
 * budget and outputs, then `recipe.passthrough.trl` and `job.adapter.args` verbatim. Factors
 * TRL's GRPOTrainer has no argument for throw `UnsupportedFactorError` when switched on.
 */
export function trlArgs(recipe: Recipe, job: Job): Record<string, TrlValue> {
  const { algo, data, reward } = recipe;
  const unsupported = (factor: string, reason: string) => new UnsupportedFactorError("trl", factor, reason);
  if (algo.estimator !== "grpo" && algo.estimator !== "dr_grpo") throw unsupported("algo.estimator", `GRPOTrainer has no ${algo.estimator} estimator`);
  if (algo.kl.mode === "reward") throw unsupported("algo.kl", "GRPOTrainer applies KL only as a loss term (beta)");
  if (algo.entropyCoef > 0) throw unsupported("algo.entropyCoef", "GRPOTrainer has no entropy bonus");
  if (algo.maxTurns > 1) throw unsupported("algo.maxTurns", "multi-turn episodes need an environment TRL's GRPO CLI does not take");
  const lossType = LOSS_TYPE[algo.lossAggregation];
  if (!lossType) throw unsupported("algo.lossAggregation", `no loss_type aggregates as ${algo.lossAggregation}`);
  if (data.dynamicSampling.enabled) throw unsupported("data.dynamicSampling", "GRPOTrainer does not resample zero-variance groups");
  if (data.curriculum.enabled) throw unsupported("data.curriculum", "GRPOTrainer has no pass-rate curriculum");
  if (reward.overlong.enabled) throw unsupported("reward.overlong", "soft overlong punishment is a reward function, name it in job.adapter.rewardFuncs");

  const settings = job.adapter as TrlJobSettings;
  const args: Record<string, TrlValue> = {
    // A child branch starts from its parent's saved model.
    model_name_or_path: job.policy.checkpoint ?? job.policy.base,
    output_dir: trlPaths(job.outputDir).outputDir,
    learning_rate: algo.lr,
    beta: algo.kl.mode === "loss" ? algo.kl.coef : 0,
    epsilon: algo.clip.low,
    epsilon_high: algo.clip.high,
    num_generations: algo.groupSize,
    temperature: algo.temperature,
    max_completion_length: algo.maxResponseTokens,
    loss_type: lossType,
    // Dr. GRPO: advantages are not divided by the group's std.
    scale_rewards: algo.estimator === "grpo" ? "group" : "none",
    mask_truncated_completions: data.overlongFilter,
    // Every step's completions reach the control plane: parquet per logged step, logged every step.
    log_completions: true,
    logging_steps: 1,
    seed: job.seed,
    report_to: "none",
  };
  if (job.kind === "train") args.max_steps = job.budget.maxSteps!;
  if (settings.dataset) args.dataset_name = settings.dataset;
  if (settings.rewardFuncs) {
    args.reward_funcs = settings.rewardFuncs;
    // One weight per reward function, in the recipe's component order.
    const weights = Object.values(reward.components).map((c) => c.weight);
    if (weights.length === settings.rewardFuncs.length) args.reward_weights = weights;
  }
  return { ...args, ...((recipe.passthrough.trl ?? {}) as Record<string, TrlValue>), ...(settings.args ?? {}) };
}
