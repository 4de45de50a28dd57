import { posix } from "node:path";
import type { Job } from "@evotrainer/contract";
import { paths } from "@evotrainer/contract";
import type { Recipe } from "@evotrainer/core";
import { UnsupportedFactorError } from "../unsupported-factor.ts";
import { hydraOverride, type HydraValue } from "./hydra-override.ts";
import { REWARD_WRAPPER_FILE, REWARD_WRAPPER_FUNCTION } from "./reward-wrapper.ts";
import { verlNodes } from "./verl-nodes.ts";
import type { VerlJobSettings } from "./verl-job-settings.ts";
import { verlPaths } from "./verl-paths.ts";

/**
 * The recipe's factors as verl's Hydra keys (every key exists in verl's generated trainer config,
 * `tests/fixtures/real/verl-ppo-trainer-config.yaml`). Factors verl has no key for throw
 * `UnsupportedFactorError` when they are switched on.
 */
export function recipeOverrides(recipe: Recipe): [string, HydraValue][] {
  const { algo, data, reward } = recipe;
  const out: [string, HydraValue][] = [];
  // Dr. GRPO is verl's GRPO estimator without dividing advantages by the group's std.
  out.push(["algorithm.adv_estimator", algo.estimator === "dr_grpo" ? "grpo" : algo.estimator]);
  if (algo.estimator === "grpo" || algo.estimator === "dr_grpo") {
    out.push(["algorithm.norm_adv_by_std_in_grpo", algo.estimator === "grpo"]);
  }
  out.push(["actor_rollout_ref.actor.optim.lr", algo.lr]);
  // KL either in the actor loss (GRPO) or folded into the reward (PPO); both switches are set so a
  // recipe never inherits the other mode from verl's defaults.
  out.push(["actor_rollout_ref.actor.use_kl_loss", algo.kl.mode === "loss"]);
  out.push(["algorithm.use_kl_in_reward", algo.kl.mode === "reward"]);
  if (algo.kl.mode === "loss") out.push(["actor_rollout_ref.actor.kl_loss_coef", algo.kl.coef]);
  if (algo.kl.mode === "reward") out.push(["algorithm.kl_ctrl.kl_coef", algo.kl.coef]);
  out.push(["actor_rollout_ref.actor.clip_ratio_low", algo.clip.low]);
  out.push(["actor_rollout_ref.actor.clip_ratio_high", algo.clip.high]);
  out.push(["actor_rollout_ref.actor.entropy_coeff", algo.entropyCoef]);
  out.push(["actor_rollout_ref.rollout.n", algo.groupSize]);
  out.push(["actor_rollout_ref.rollout.temperature", algo.temperature]);
  out.push(["data.max_response_length", algo.maxResponseTokens]);
  out.push(["actor_rollout_ref.actor.loss_agg_mode", algo.lossAggregation]);
  out.push(["actor_rollout_ref.rollout.multi_turn.enable", algo.maxTurns > 1]);
  if (algo.maxTurns > 1) out.push(["actor_rollout_ref.rollout.multi_turn.max_assistant_turns", algo.maxTurns]);

  // DAPO's dynamic sampling: verl drops groups whose sequence rewards are all equal and generates
  // more batches, up to max_num_gen_batches.
  out.push(["algorithm.filter_groups.enable", data.dynamicSampling.enabled]);
  if (data.dynamicSampling.enabled) {
    out.push(["algorithm.filter_groups.metric", "seq_reward"]);
    out.push(["algorithm.filter_groups.max_num_gen_batches", data.dynamicSampling.maxResampleRounds]);
  }
  if (data.overlongFilter) {
    throw new UnsupportedFactorError("verl", "data.overlongFilter", "verl's PPO trainer config has no key that masks truncated responses out of the loss");
  }
  if (data.curriculum.enabled) {
    throw new UnsupportedFactorError("verl", "data.curriculum", "verl's PPO trainer config has no pass-rate curriculum sampler");
  }
  if (reward.overlong.enabled) {
    // The overlong buffer lives in verl's DAPO recipe config (reward_model.overlong_buffer), not in
    // the PPO trainer's, and the reward wrapper cannot apply it: compute_score gets text, no token count.
    throw new UnsupportedFactorError("verl", "reward.overlong", "verl's PPO trainer config has no overlong buffer, and its reward function is not given response lengths");
  }
  return out;
}

/** What the job decides rather than the recipe: model, budget, evaluation, where outputs go. */
export function jobOverrides(job: Job): [string, HydraValue][] {
  const settings = job.adapter as VerlJobSettings;
  const verl = verlPaths(job.outputDir);
  const out: [string, HydraValue][] = [];
  out.push(["actor_rollout_ref.model.path", job.policy.base]);
  if (job.policy.checkpoint) {
    // A child branch continues from its parent's verl checkpoint (weights, optimizer, step).
    out.push(["trainer.resume_mode", "resume_path"]);
    out.push(["trainer.resume_from_path", job.policy.checkpoint]);
  }
  if (settings.rolloutEngine) out.push(["actor_rollout_ref.rollout.name", settings.rolloutEngine]);
  if (settings.trainFiles) out.push(["data.train_files", settings.trainFiles]);
  // verl's dumps do not say which dataset a validation sample came from, so one split per job:
  // the first the job asks for (promotion unless it is a sealed-only evaluation).
  const split = job.evalSplits[0]!;
  const protocol = job.evaluation[split];
  out.push(["data.val_files", protocol.dataset]);
  out.push(["actor_rollout_ref.rollout.val_kwargs.n", protocol.samplesPerTask]);
  out.push(["actor_rollout_ref.rollout.val_kwargs.temperature", protocol.temperature]);
  out.push(["actor_rollout_ref.rollout.val_kwargs.do_sample", protocol.temperature > 0]);
  out.push(["reward.custom_reward_function.path", rewardWrapperPath(job)]);
  out.push(["reward.custom_reward_function.name", REWARD_WRAPPER_FUNCTION]);
  out.push(["data.seed", job.seed]);
  out.push(["actor_rollout_ref.rollout.seed", job.seed]);
  out.push(["trainer.project_name", job.runId]);
  out.push(["trainer.experiment_name", job.branchId]);
  out.push(["trainer.logger", ["console", "file"]]);
  out.push(["trainer.rollout_data_dir", verl.rolloutDataDir]);
  out.push(["trainer.validation_data_dir", verl.validationDataDir]);
  out.push(["trainer.default_local_dir", verl.checkpointsDir]);
  const { nnodes, gpusPerNode } = verlNodes(job);
  out.push(["trainer.nnodes", nnodes]);
  out.push(["trainer.n_gpus_per_node", gpusPerNode]);
  if (job.kind === "eval") {
    out.push(["trainer.val_only", true]);
    out.push(["trainer.val_before_train", true]);
  } else {
    out.push(["trainer.total_training_steps", job.budget.maxSteps!]);
    // verl validates and saves only at multiples of these (never when -1, its default): once, at
    // the last step, gives the promotion-split evaluation and the checkpoint a child resumes from.
    out.push(["trainer.test_freq", job.budget.maxSteps!]);
    out.push(["trainer.save_freq", job.budget.maxSteps!]);
    out.push(["trainer.val_before_train", false]);
  }
  return out;
}

/**
 * The Hydra overrides of `python3 -m verl.trainer.main_ppo` for a job: the recipe's factors, the
 * job's settings, then `recipe.passthrough.verl` and `job.adapter.overrides` verbatim. A later
 * override of the same key replaces the earlier one, so each key appears once, in its first place.
 */
export function verlOverrides(recipe: Recipe, job: Job): string[] {
  const merged = new Map<string, HydraValue>();
  const settings = job.adapter as VerlJobSettings;
  for (const [key, value] of [
    ...recipeOverrides(recipe),
    ...jobOverrides(job),
    ...Object.entries((recipe.passthrough.verl ?? {}) as Record<string, HydraValue>),
    ...Object.entries(settings.overrides ?? {}),
  ]) {
    merged.set(key, value);
  }
  return [...merged].map(([key, value]) => hydraOverride(key, value));
}

/**
 * Where verl finds the reward wrapper the adapter ships in the job's directory: there, by absolute
 * path, on one node; on a Ray cluster, relative to the working dir Ray uploads to every node.
 */
export function rewardWrapperPath(job: Job): string {
  return verlNodes(job).nnodes > 1 ? REWARD_WRAPPER_FILE : posix.join(posix.dirname(job.outputDir), REWARD_WRAPPER_FILE);
}

/** Where verl's file logger writes: the contract's `metrics.jsonl`, whose shape is the file logger's. */
export function verlMetricsPath(job: Job): string {
  return paths(job.outputDir).metrics;
}
