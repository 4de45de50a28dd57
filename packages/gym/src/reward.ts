import { overlongPenalty, type Recipe } from "@evotrainer/core";

/**
 * The recipe's reward for one rollout: weighted components plus DAPO overlong shaping. The same
 * formula core's backtest re-scores logged rollouts with, so a backtest predicts what training sees.
 */
export function recipeReward(recipe: Recipe, components: Readonly<Record<string, number>>, responseTokens: number): number {
  let reward = 0;
  for (const [name, c] of Object.entries(recipe.reward.components)) reward += c.weight * (components[name] ?? 0);
  return reward + overlongPenalty(recipe.reward, recipe.algo.maxResponseTokens, responseTokens);
}

/** Components the recipe weights that the domain cannot score. */
export function unknownComponents(recipe: Recipe, known: readonly string[]): string[] {
  return Object.keys(recipe.reward.components).filter((name) => !known.includes(name));
}
