import type { Job } from "@evotrainer/contract";
import { recipeSchema, type Recipe } from "@evotrainer/core";
import { domainModel } from "./domains.ts";
import { parseGymDataset } from "./evaluate.ts";
import { SUPPORTED_ESTIMATORS } from "./grpo.ts";
import { unknownComponents } from "./reward.ts";
import { GYM_DOMAINS, type GymDomain } from "./tasks/task.ts";

/** The job asks for something the gym cannot do; rerunning it fails the same way (exit 2). */
export class GymConfigError extends Error {
  override readonly name = "GymConfigError";
}

/** The gym's adapter knobs (`job.adapter`): batch shape and pacing, none of them a recipe factor. */
export interface GymOptions {
  // Prompts per step, each sampled algo.groupSize times (verl's train_batch_size).
  tasksPerStep: number;
  miniBatches: number;
  trainPoolSize: number;
  // Evaluate every N steps as well as at the end; 0 = only at the end.
  evalEvery: number;
  // Caps the pace, so a person (or a test) can watch a run progress; unlimited when absent.
  stepsPerSecond?: number;
  // false: beats leave out the optional `startedAt`, as a contract trainer that does not track its
  // own start does; the control plane then charges the job's process times.
  heartbeatStartedAt: boolean;
}

export const DEFAULT_GYM_OPTIONS: GymOptions = { tasksPerStep: 16, miniBatches: 4, trainPoolSize: 4096, evalEvery: 0, heartbeatStartedAt: true };

export interface GymSetup {
  domain: GymDomain;
  recipe: Recipe;
  options: GymOptions;
}

/** Checks everything the gym needs from a job before any work starts. */
export function resolveSetup(job: Job): GymSetup {
  const problems: string[] = [];
  const domain = GYM_DOMAINS.find((d) => d === job.domain);
  if (domain === undefined) throw new GymConfigError(`domain ${job.domain}: the gym generates ${GYM_DOMAINS.join(", ")} tasks only`);
  if (!job.policy.base.startsWith("gym:")) problems.push(`policy.base "${job.policy.base}": the gym trains its own policies, named gym:<name>`);

  const parsed = recipeSchema.safeParse(job.recipe);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `recipe.${i.path.join(".")}: ${i.message}`);
    throw new GymConfigError(["the recipe is not valid:", ...issues].join("\n  - "));
  }
  const recipe = parsed.data;
  if (!(SUPPORTED_ESTIMATORS as readonly string[]).includes(recipe.algo.estimator)) {
    problems.push(`recipe.algo.estimator "${recipe.algo.estimator}": the gym has no critic or greedy baseline; use one of ${SUPPORTED_ESTIMATORS.join(", ")}`);
  }
  const model = domainModel(domain);
  for (const name of unknownComponents(recipe, model.components)) {
    problems.push(`recipe.reward.components.${name}: the ${domain} gym scores ${model.components.join(", ")}`);
  }
  for (const split of job.evalSplits) {
    const dataset = parseGymDataset(job.evaluation[split].dataset, domain);
    if ("error" in dataset) problems.push(`evaluation.${split}.dataset: ${dataset.error}`);
  }
  const options = readOptions(job.adapter, problems);
  if (problems.length > 0) throw new GymConfigError(["the job cannot run on the gym:", ...problems].join("\n  - "));
  return { domain, recipe, options };
}

function readOptions(adapter: Record<string, unknown>, problems: string[]): GymOptions {
  const options: GymOptions = { ...DEFAULT_GYM_OPTIONS };
  for (const [key, value] of Object.entries(adapter)) {
    const positive = typeof value === "number" && Number.isFinite(value) && value > 0;
    switch (key) {
      case "tasksPerStep":
      case "miniBatches":
      case "trainPoolSize":
        if (positive && Number.isInteger(value)) options[key] = value;
        else problems.push(`adapter.${key}: a positive integer, got ${JSON.stringify(value)}`);
        break;
      case "evalEvery":
        if (typeof value === "number" && Number.isInteger(value) && value >= 0) options.evalEvery = value;
        else problems.push(`adapter.evalEvery: a non-negative integer, got ${JSON.stringify(value)}`);
        break;
      case "stepsPerSecond":
        if (positive) options.stepsPerSecond = value;
        else problems.push(`adapter.stepsPerSecond: a positive number, got ${JSON.stringify(value)}`);
        break;
      case "heartbeatStartedAt":
        if (typeof value === "boolean") options.heartbeatStartedAt = value;
        else problems.push(`adapter.heartbeatStartedAt: true or false, got ${JSON.stringify(value)}`);
        break;
      default:
        problems.push(`adapter.${key}: unknown gym setting (known: ${[...Object.keys(DEFAULT_GYM_OPTIONS), "stepsPerSecond"].join(", ")})`);
    }
  }
  return options;
}
