import type { Recipe } from "@evotrainer/core";
import type { DomainModel, Episode, EpisodeEnv } from "./episodes/episode.ts";
import { behaviourProbs, drawBehaviour, entropy, logProb, successProb, type Action, type Policy } from "./policy.ts";
import { recipeReward } from "./reward.ts";
import { rngFor } from "./rng.ts";
import type { Task } from "./tasks/task.ts";

/** One rollout with what the update needs: the action taken, its log-probs, reward and advantage. */
export interface Sample {
  task: Task;
  index: number;
  behaviour: string;
  action: Action;
  episode: Episode;
  oldLogProb: number;
  refLogProb: number;
  // Entropy of the behaviour distribution the sample was drawn from.
  entropy: number;
  // The recipe's reward (verl's "score"); `reward` adds KL when the recipe puts KL in the reward.
  score: number;
  reward: number;
  advantage: number;
  // Left out of the loss (overlong filter).
  masked: boolean;
}

export interface SamplingContext {
  model: DomainModel<Task>;
  policy: Policy;
  reference: Policy;
  env: EpisodeEnv;
  temperature: number;
  // Training rollouts are scored by the recipe; evaluation rollouts by the locked grader.
  score(episode: Episode): number;
}

/**
 * Draws one rollout; `key` names its random stream so that it can be replayed exactly. `shared`,
 * the group's common draw, is what a sample's attempt copies when the policy has stopped exploring.
 */
export function sampleRollout(ctx: SamplingContext, task: Task, index: number, key: readonly (string | number)[], shared?: number): Sample {
  const rng = rngFor(...key);
  const probs = behaviourProbs(ctx.policy, task.difficulty, ctx.temperature);
  const b = drawBehaviour(probs, rng.next());
  const behaviour = ctx.model.behaviours[b]!;
  const bias = ctx.model.outcomeBias(task, behaviour, ctx.env);
  const h = entropy(probs);
  // A policy whose distribution has collapsed writes near-identical solutions: its samples of one
  // prompt share their mistakes, so low entropy makes a group's outcomes move together (and its
  // rewards all-equal), as real groups do when a model stops exploring. Drawn even when unused so
  // that the episode's own randomness does not depend on the behaviour.
  const copies = shared !== undefined && rng.next() < 1 - h / Math.log(probs.length);
  const own = rng.next();
  const u = copies ? shared : own;
  const action: Action = { difficulty: task.difficulty, behaviour: b };
  let correct = false;
  if (bias !== undefined) {
    correct = u < successProb(ctx.policy, task.difficulty, bias, ctx.temperature);
    action.outcome = { correct, bias };
  }
  const episode = ctx.model.play(task, behaviour, correct, ctx.env, rng);
  const score = ctx.score(episode);
  return {
    task,
    index,
    behaviour,
    action,
    episode,
    oldLogProb: logProb(ctx.policy, action, ctx.temperature),
    refLogProb: logProb(ctx.reference, action, ctx.temperature),
    entropy: h,
    score,
    reward: score,
    advantage: 0,
    masked: false,
  };
}

export function sampleGroup(ctx: SamplingContext, task: Task, size: number, key: readonly (string | number)[]): Sample[] {
  const shared = rngFor(...key, task.id, "group").next();
  return Array.from({ length: size }, (_, i) => sampleRollout(ctx, task, i, [...key, task.id, i], shared));
}

/** The recipe's reward as a scoring function for training rollouts. */
export function recipeScorer(recipe: Recipe): (episode: Episode) => number {
  return (episode) => recipeReward(recipe, episode.components, episode.responseTokens);
}
