import { posix } from "node:path";
import type { Job } from "@evotrainer/contract";
import { positiveIntProblem, trlSettingsSchema, type Recipe, type TrlFactorArg } from "@evotrainer/core";
import { TrainerConfigError } from "../trainer-config-error.ts";
import { UnsupportedFactorError } from "../unsupported-factor.ts";

/** A JSON value, as TRL's YAML config holds it. */
export type TrlValue = string | number | boolean | null | readonly TrlValue[] | { readonly [key: string]: TrlValue };

// transformers' TrainingArguments default, which the generation batch is built from.
const DEFAULT_PER_DEVICE_BATCH = 8;

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
 * `GRPOConfig` arguments (TRL 1.13 names) for a job: the recipe's factors, the job's model,
 * budget and outputs, then `recipe.passthrough.trl` and `job.adapter.args` verbatim, then the
 * generation batch sized so that every group fits in it. Factors TRL's GRPOTrainer has no argument
 * for throw `UnsupportedFactorError` when switched on. The reward functions themselves are built
 * by the job wrapper (evo_trl_job.py), one per recipe component, in `reward_weights`' order.
 */
export function trlArgs(recipe: Recipe, job: Job): Record<string, TrlValue> {
  const { algo, data, reward } = recipe;
  const unsupported = (factor: string, reason: string) => new UnsupportedFactorError("trl", factor, reason);
  if (algo.estimator !== "grpo" && algo.estimator !== "dr_grpo") throw unsupported("algo.estimator", `GRPOTrainer has no ${algo.estimator} estimator`);
  if (algo.kl.mode === "reward") throw unsupported("algo.kl", "GRPOTrainer applies KL only as a loss term (beta)");
  if (algo.maxTurns > 1) throw unsupported("algo.maxTurns", "multi-turn episodes need an environment TRL's GRPO CLI does not take");
  const lossType = LOSS_TYPE[algo.lossAggregation];
  if (!lossType) throw unsupported("algo.lossAggregation", `no loss_type aggregates as ${algo.lossAggregation}`);
  if (data.dynamicSampling.enabled) throw unsupported("data.dynamicSampling", "GRPOTrainer does not resample zero-variance groups");
  if (data.curriculum.enabled) throw unsupported("data.curriculum", "GRPOTrainer has no pass-rate curriculum");
  if (reward.overlong.enabled) throw unsupported("reward.overlong", "GRPOTrainer has no overlong buffer; write it as a reward function and name it in trainer.rewardFunctions");

  const settings = trlSettingsSchema.parse(job.adapter);
  const args: Record<string, TrlValue> = {
    // A child branch starts from its parent's saved model.
    model_name_or_path: job.policy.checkpoint ?? job.policy.base,
    output_dir: trlPaths(job.outputDir).outputDir,
    ...factorArgs(recipe, lossType),
    // Every step's completions reach the control plane: parquet per logged step, logged every step.
    log_completions: true,
    logging_steps: 1,
    seed: job.seed,
    report_to: "none",
    // A node without a GPU trains on the CPU; TRL would otherwise fail looking for one.
    use_cpu: job.budget.gpuCount === 0,
  };
  if (job.kind === "train") args.max_steps = job.budget.maxSteps!;
  const merged = { ...args, ...((recipe.passthrough.trl ?? {}) as Record<string, TrlValue>), ...(settings.args as Record<string, TrlValue>) };
  // TRL takes the generation batch or steps_per_generation, not both: the batch replaces it.
  const { steps_per_generation: _replaced, ...rest } = merged;
  const weights = merged.reward_weights;
  const components = Object.keys(reward.components).length;
  // GRPOTrainer refuses this at its start ("Number of reward weights (3) must match number of reward functions (2)").
  if (Array.isArray(weights) && weights.length !== components) {
    throw new TrainerConfigError(fieldOf(settings.args, "reward_weights"), `${weights.length} reward weights for ${components} reward functions (one per recipe component); set each weight in recipe.reward.components instead`);
  }
  return { ...rest, ...generationBatch(merged, (name) => fieldOf(settings.args, name)) };
}

/** The arguments of core's TRL_FACTOR_ARGS, from the recipe; the type keeps the map and the render the same. */
function factorArgs({ algo, data, reward }: Recipe, lossType: string): Record<TrlFactorArg, TrlValue> {
  return {
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
    // TRL's entropy bonus (added to the loss, the same for every loss type).
    entropy_coef: algo.entropyCoef,
    // One weight per reward function, in the recipe's component order.
    reward_weights: Object.values(reward.components).map((c) => c.weight),
  };
}

/** The run config field an argument came from: `trainer.args` wins over the recipe's passthrough. */
const fieldOf = (args: Record<string, unknown>, name: string) => (name in args ? `trainer.args.${name}` : `recipe.passthrough.trl.${name}`);

/**
 * The generation batch TRL would build (GRPOConfig.__post_init__, one process per job): asked as
 * `generation_batch_size`, or `per_device_train_batch_size × steps_per_generation`, where
 * `steps_per_generation` defaults to `gradient_accumulation_steps` so that one generation feeds one
 * optimizer step. TRL refuses a batch that holds a partial group (`% num_generations`) or is not
 * whole micro-batches (`% per_device_train_batch_size`), so it is rounded up to the smallest common
 * multiple of both that holds at least that: a group larger than the micro-batch then spans several
 * micro-batches (and, past `gradient_accumulation_steps` of them, several optimizer steps) rather
 * than being refused. It is returned as `generation_batch_size`, which TRL turns back into
 * `steps_per_generation = generation_batch_size / per_device_train_batch_size`.
 */
export function generationBatch(args: Readonly<Record<string, TrlValue>>, field: (name: string) => string = (name) => name): { generation_batch_size: number } {
  const positiveInt = (name: string): number => {
    const problem = positiveIntProblem(name, args[name]);
    if (problem) throw new TrainerConfigError(field(name), problem);
    return args[name] as number;
  };
  const group = positiveInt("num_generations");
  const perDevice = args.per_device_train_batch_size === undefined ? DEFAULT_PER_DEVICE_BATCH : positiveInt("per_device_train_batch_size");
  const accumulation = args.gradient_accumulation_steps === undefined ? 1 : positiveInt("gradient_accumulation_steps");
  const asked =
    args.generation_batch_size !== undefined
      ? positiveInt("generation_batch_size")
      : perDevice * (args.steps_per_generation === undefined ? accumulation : positiveInt("steps_per_generation"));
  const unit = lcm(group, perDevice);
  return { generation_batch_size: Math.ceil(asked / unit) * unit };
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
const lcm = (a: number, b: number): number => (a / gcd(a, b)) * b;
