import type { Recipe } from "@evotrainer/core";
import { basePolicy, domainModel } from "./domains.ts";
import type { EpisodeEnv } from "./episodes/episode.ts";
import { assignAdvantages, grpoUpdate, isDeadGroup } from "./grpo.ts";
import type { Policy } from "./policy.ts";
import { rngFor } from "./rng.ts";
import { recipeScorer, sampleGroup, type Sample, type SamplingContext } from "./sampling.ts";
import { poolTask, TRAIN_POOL } from "./tasks/pool.ts";
import type { GymDomain } from "./tasks/task.ts";

export interface TrainingSetup {
  domain: GymDomain;
  recipe: Recipe;
  seed: number;
  // Prompts per step (verl's train_batch_size); each is sampled algo.groupSize times.
  tasksPerStep: number;
  // PPO mini-batches per step: more of them, more off-policy the later ones, more clipping.
  miniBatches: number;
  trainPoolSize: number;
}

export interface StepResult {
  step: number;
  // The groups the update trained on, after dynamic sampling and filters.
  batch: Sample[][];
  metrics: Record<string, number>;
}

export interface Training {
  readonly policy: Policy;
  runStep(step: number): StepResult;
}

export function trainingEnv(recipe: Recipe): EpisodeEnv {
  return {
    maxResponseTokens: recipe.algo.maxResponseTokens,
    maxTurns: recipe.algo.maxTurns,
    clearGitHistory: recipe.env.clearGitHistory,
    readOnlyTests: recipe.env.readOnlyTests,
    hideTestFiles: recipe.env.hideTestFiles,
  };
}

/** GRPO training of `policy` (updated in place) under the recipe, one step at a time, no IO. */
export function createTraining(setup: TrainingSetup, policy: Policy): Training {
  const { recipe, domain } = setup;
  const model = domainModel(domain);
  const reference = basePolicy(domain);
  const ctx: SamplingContext = {
    model,
    policy,
    reference,
    env: trainingEnv(recipe),
    temperature: recipe.algo.temperature,
    score: recipeScorer(recipe),
  };
  const { dynamicSampling, curriculum, overlongFilter } = recipe.data;

  const sampleRound = (step: number, round: number): Sample[][] => {
    const draw = rngFor(setup.seed, "tasks", step, round);
    return Array.from({ length: setup.tasksPerStep }, (_, slot) => {
      const task = poolTask(domain, TRAIN_POOL, draw.int(0, setup.trainPoolSize - 1));
      const group = sampleGroup(ctx, task, recipe.algo.groupSize, [setup.seed, "train", step, round, slot]);
      for (const s of group) {
        if (recipe.algo.kl.mode === "reward") s.reward = s.score - recipe.algo.kl.coef * (s.oldLogProb - s.refLogProb);
        s.masked = overlongFilter && s.episode.truncated;
      }
      return group;
    });
  };

  const runStep = (step: number): StepResult => {
    const batch: Sample[][] = [];
    let sampled = 0;
    let sampledDead = 0;
    let filtered = 0;
    let rounds = 0;
    // DAPO dynamic sampling: drop zero-variance groups and draw fresh ones until the batch is full.
    const maxRounds = dynamicSampling.enabled ? 1 + dynamicSampling.maxResampleRounds : 1;
    while (rounds < maxRounds && batch.length < setup.tasksPerStep) {
      for (const group of sampleRound(step, rounds)) {
        sampled++;
        const dead = isDeadGroup(group);
        if (dead) sampledDead++;
        const passRate = group.filter((s) => s.score >= 0.5).length / group.length;
        const outside = curriculum.enabled && (passRate < curriculum.minPassRate || passRate > curriculum.maxPassRate);
        if ((dynamicSampling.enabled && dead) || outside) filtered++;
        else batch.push(group);
      }
      rounds++;
    }
    batch.splice(setup.tasksPerStep);
    assignAdvantages(batch, recipe.algo.estimator);
    const stats = grpoUpdate(policy, reference, batch, recipe, setup.miniBatches);
    return { step, batch, metrics: stepMetrics(batch, stats, { sampled, sampledDead, filtered, rounds }) };
  };

  function stepMetrics(
    batch: Sample[][],
    stats: ReturnType<typeof grpoUpdate>,
    counts: { sampled: number; sampledDead: number; filtered: number; rounds: number },
  ): Record<string, number> {
    const all = batch.flat();
    const n = Math.max(1, all.length);
    const avg = (f: (s: Sample) => number) => all.reduce((acc, s) => acc + f(s), 0) / n;
    const scores = all.map((s) => s.score);
    const lengths = all.map((s) => s.episode.responseTokens);
    const advantages = all.map((s) => s.advantage);
    const meanScore = avg((s) => s.score);
    const truncation = avg((s) => (s.episode.truncated ? 1 : 0));
    const dead = batch.filter(isDeadGroup).length;
    const metrics: Record<string, number> = {
      "critic/score/mean": meanScore,
      "critic/score/std": Math.sqrt(avg((s) => (s.score - meanScore) ** 2)),
      "critic/score/max": Math.max(...scores, 0),
      "critic/score/min": Math.min(...scores, 0),
      "critic/rewards/mean": avg((s) => s.reward),
      "critic/advantages/max": Math.max(...advantages, 0),
      "critic/advantages/min": Math.min(...advantages, 0),
      "response_length/mean": avg((s) => s.episode.responseTokens),
      "response_length/max": Math.max(...lengths, 0),
      "response_length/clip_ratio": truncation,
      "actor/entropy": stats.entropy,
      "actor/kl_loss": stats.klLoss,
      "actor/ppo_kl": stats.ppoKl,
      "actor/pg_clipfrac": stats.clipFraction,
      "actor/pg_loss": stats.pgLoss,
      "actor/grad_norm": stats.gradNorm,
      "actor/lr": recipe.algo.lr,
      "train/reward_mean": meanScore,
      "train/pass_rate": avg((s) => s.episode.components["correctness"] ?? 0),
      "train/truncation_rate": truncation,
      "train/turns_mean": avg((s) => s.episode.turns),
      "train/groups": batch.length,
      "train/dead_group_ratio": batch.length === 0 ? 0 : dead / batch.length,
      "train/sampled_dead_group_ratio": counts.sampled === 0 ? 0 : counts.sampledDead / counts.sampled,
      "train/filtered_groups": counts.filtered,
      "train/gen_rounds": counts.rounds,
    };
    for (const name of model.components) metrics[`train/component/${name}`] = avg((s) => s.episode.components[name] ?? 0);
    return metrics;
  }

  return { policy, runStep };
}
