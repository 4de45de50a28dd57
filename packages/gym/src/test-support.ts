// Shared by the gym's tests: a branch trained in memory from the default recipe with one change.
import { defaultRecipe, type Recipe } from "@evotrainer/core";
import type { EvalSplitSpec } from "@evotrainer/contract";
import { basePolicy } from "./domains.ts";
import { evaluateSplit } from "./evaluate.ts";
import type { Policy } from "./policy.ts";
import type { Sample } from "./sampling.ts";
import type { GymDomain } from "./tasks/task.ts";
import { createTraining } from "./training.ts";

export interface TrainedBranch {
  policy: Policy;
  metrics: Record<string, number>[];
  batches: Sample[][][];
}

export function gymRecipe(change: (recipe: Recipe) => void = () => {}): Recipe {
  const recipe = defaultRecipe();
  recipe.algo.maxResponseTokens = 1024;
  recipe.algo.maxTurns = 30;
  change(recipe);
  return recipe;
}

export function trainBranch(domain: GymDomain, change: (recipe: Recipe) => void, steps = 30, seed = 1): TrainedBranch {
  const training = createTraining(
    { domain, recipe: gymRecipe(change), seed, tasksPerStep: 16, miniBatches: 4, trainPoolSize: 4096 },
    basePolicy(domain),
  );
  const metrics: Record<string, number>[] = [];
  const batches: Sample[][][] = [];
  for (let step = 1; step <= steps; step++) {
    const result = training.runStep(step);
    metrics.push(result.metrics);
    batches.push(result.batch);
  }
  return { policy: training.policy, metrics, batches };
}

/** Mean of one metric over steps [from, to) (1-based steps, as logged). */
export function meanOver(branch: TrainedBranch, key: string, from: number, to: number): number {
  const xs = branch.metrics.slice(from - 1, to - 1).map((m) => m[key]!);
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

export function promotionSpec(domain: GymDomain): EvalSplitSpec {
  return { dataset: `gym:${domain}/promotion`, taskCount: 64, samplesPerTask: 4, temperature: 0.6, maxResponseTokens: 1024, grader: "hidden_tests" };
}

/** The locked grader's promotion score, with the same evaluation draws for every policy. */
export function promotionScore(policy: Policy): number {
  return evaluateSplit(policy, "promotion", promotionSpec(policy.domain), 7, 0).result.score;
}
