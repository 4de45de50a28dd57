import type { Rollout, ScoredRollout } from "@evotrainer/contract";
import type { Recipe } from "./recipe.ts";

/**
 * DAPO soft overlong punishment: 0 up to (max - buffer) tokens, then a linear ramp down to
 * -penalty at the limit, and -penalty beyond it.
 */
export function overlongPenalty(reward: Recipe["reward"], maxResponseTokens: number, tokens: number): number {
  const { enabled, bufferTokens, penalty } = reward.overlong;
  if (!enabled || penalty === 0) return 0;
  if (tokens > maxResponseTokens) return -penalty;
  const start = maxResponseTokens - bufferTokens;
  if (tokens <= start || bufferTokens === 0) return 0;
  return ((start - tokens) / bufferTokens) * penalty;
}

/**
 * The part of a rollout's reward a recipe controls: weighted named components plus overlong
 * shaping. A rollout the recipe's length limit would cut loses its components (no final answer
 * survives a cut) and takes the full overlong penalty.
 */
export function recipeScore(recipe: Recipe, r: Rollout): number {
  const max = recipe.algo.maxResponseTokens;
  const cut = r.responseTokens > max;
  let s = 0;
  if (!cut) {
    for (const [name, c] of Object.entries(recipe.reward.components)) s += c.weight * (r.rewardComponents[name] ?? 0);
  }
  return s + overlongPenalty(recipe.reward, max, r.responseTokens);
}

/**
 * The reward a logged rollout would have received under `candidate`: the logged reward moved by
 * the difference of what the two recipes control, so reward parts no recipe declares (a judge the
 * trainer adds, say) are kept as logged.
 */
export function rescore(parent: Recipe, candidate: Recipe, r: ScoredRollout): number {
  return r.reward + recipeScore(candidate, r) - recipeScore(parent, r);
}
