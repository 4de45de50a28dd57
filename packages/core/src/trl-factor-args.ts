import type { RunConfig } from "./run-config.ts";
import { trainerArgFields } from "./trainer-arg-fields.ts";

/**
 * The GRPOConfig argument each recipe factor sets (the TRL adapter renders them from the recipe,
 * its `factorArgs` typed by this map). An intervention changes the factor, so the same key in
 * `trainer.args` or `recipe.passthrough.trl`, applied after it, would make that intervention a
 * no-op: `run` refuses such a key, naming the factor to set instead.
 */
export const TRL_FACTOR_ARGS = {
  learning_rate: "recipe.algo.lr",
  beta: "recipe.algo.kl",
  epsilon: "recipe.algo.clip.low",
  epsilon_high: "recipe.algo.clip.high",
  num_generations: "recipe.algo.groupSize",
  temperature: "recipe.algo.temperature",
  max_completion_length: "recipe.algo.maxResponseTokens",
  loss_type: "recipe.algo.lossAggregation",
  scale_rewards: "recipe.algo.estimator",
  mask_truncated_completions: "recipe.data.overlongFilter",
  entropy_coef: "recipe.algo.entropyCoef",
  reward_weights: "recipe.reward.components.<name>.weight",
} as const satisfies Record<string, string>;
export type TrlFactorArg = keyof typeof TRL_FACTOR_ARGS;

/** GRPOConfig's batch arguments, which TRL needs as positive integers (it divides by them). */
export const TRL_POSITIVE_INT_ARGS = ["per_device_train_batch_size", "gradient_accumulation_steps", "generation_batch_size", "steps_per_generation", "num_iterations"] as const;

/** Why `value` is not a positive integer for TRL's `name`, or null when it is one. */
export function positiveIntProblem(name: string, value: unknown): string | null {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 1 ? null : `TRL's ${name} must be a positive integer, got ${JSON.stringify(value)}`;
}

/**
 * The lines that refuse a TRL run's trainer arguments before anything is created, without asking
 * the trainer: a key a recipe factor owns, and a batch argument that is not a positive integer
 * (`gradient_accumulation_steps: 0` would fail every dispatch). One line per problem, under its
 * config field; none for other adapters, whose keys their own check covers.
 */
export function trlArgProblems(config: RunConfig): string[] {
  const fields = trainerArgFields(config);
  if (!fields || fields.trainer !== "trl") return [];
  const owned: Readonly<Record<string, string>> = TRL_FACTOR_ARGS;
  const trainer = config.trainer as { args?: Record<string, unknown> };
  const valueOf = (key: string) => (key in (trainer.args ?? {}) ? trainer.args![key] : config.recipe.passthrough.trl?.[key]);
  const problems: string[] = [];
  for (const [key, field] of fields.fields) {
    if (key in owned) problems.push(`${field}: ${key} is set by the recipe factor ${owned[key]}, which interventions change; set ${owned[key]} instead and remove ${key} here`);
    const wrong = (TRL_POSITIVE_INT_ARGS as readonly string[]).includes(key) ? positiveIntProblem(key, valueOf(key)) : null;
    if (wrong) problems.push(`${field}: ${wrong}`);
  }
  return problems;
}
