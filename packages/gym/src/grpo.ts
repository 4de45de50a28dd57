import { groupAdvantages, isDeadGroup as isDeadRewards, type Recipe } from "@evotrainer/core";
import { addEntropyGrad, addKlGrad, addLogProbGrad, klToReference, logProb, type Policy } from "./policy.ts";
import type { Sample } from "./sampling.ts";

/**
 * Maps an LLM actor's learning rate onto the gym's few parameters: at the usual 1e-6 the SGD step
 * is 0.2 × the (clipped) gradient, so a branch of a few dozen steps learns visibly, and at 1e-5 the
 * behaviour distribution collapses within a branch, as a too-high actor lr does on a real model.
 */
export const LR_SCALE = 2e5;

// Capability grows at the pace the data allows, not the pace the optimiser is pushed: a larger lr
// re-weights habits faster but does not teach faster. So the skill has a step of its own, and only
// the behaviour logits follow the recipe's lr.
const SKILL_STEP = 0.001;

// verl's actor.grad_clip default.
const MAX_GRAD_NORM = 1;

// Length the token-sum aggregations are normalised by, so that every mode trains at a comparable scale.
const REFERENCE_TOKENS = 256;

export const SUPPORTED_ESTIMATORS = ["grpo", "dr_grpo", "rloo", "reinforce_plus_plus"] as const;

export interface UpdateStats {
  pgLoss: number;
  clipFraction: number;
  klLoss: number;
  ppoKl: number;
  gradNorm: number;
  entropy: number;
}

/** Live rewards of a group: the samples the loss sees. */
function live(group: readonly Sample[]): Sample[] {
  return group.filter((s) => !s.masked);
}

/** A group with zero reward variance: GRPO gives it no signal. */
export function isDeadGroup(group: readonly Sample[]): boolean {
  return isDeadRewards(live(group).map((s) => s.reward));
}

/** Sets each live sample's advantage under the recipe's estimator. */
export function assignAdvantages(groups: readonly Sample[][], estimator: Recipe["algo"]["estimator"]): void {
  if (estimator === "reinforce_plus_plus") {
    // REINFORCE++: one baseline for the whole batch, whitened across it.
    const all = groups.flatMap(live);
    const mean = all.reduce((s, x) => s + x.reward, 0) / Math.max(1, all.length);
    const sd = Math.sqrt(all.reduce((s, x) => s + (x.reward - mean) ** 2, 0) / Math.max(1, all.length - 1));
    for (const s of all) s.advantage = (s.reward - mean) / (sd + 1e-6);
    return;
  }
  for (const group of groups) {
    const samples = live(group);
    const rewards = samples.map((s) => s.reward);
    let adv: number[];
    if (estimator === "rloo") {
      const total = rewards.reduce((a, b) => a + b, 0);
      adv = rewards.map((r) => (rewards.length < 2 ? 0 : r - (total - r) / (rewards.length - 1)));
    } else {
      adv = groupAdvantages(rewards, estimator !== "dr_grpo");
    }
    samples.forEach((s, i) => {
      s.advantage = adv[i]!;
    });
  }
}

function lossWeights(samples: readonly Sample[], mode: Recipe["algo"]["lossAggregation"], maxTokens: number): number[] {
  const n = samples.length;
  const tokens = samples.map((s) => Math.max(1, s.episode.responseTokens));
  switch (mode) {
    case "token-mean": {
      const total = tokens.reduce((a, b) => a + b, 0);
      return tokens.map((t) => t / total);
    }
    case "seq-mean-token-mean":
      return tokens.map(() => 1 / n);
    case "seq-mean-token-sum":
      return tokens.map((t) => t / (n * REFERENCE_TOKENS));
    case "seq-mean-token-sum-norm":
      return tokens.map((t) => t / (n * maxTokens));
  }
}

/**
 * One PPO-style pass over the batch in mini-batches: clipped importance ratio against the policy
 * that sampled it, KL to the reference (when in the loss), entropy bonus, SGD with grad clipping.
 * Later mini-batches see a policy already moved by earlier ones, which is what clipping acts on.
 */
export function grpoUpdate(policy: Policy, reference: Policy, groups: readonly Sample[][], recipe: Recipe, miniBatches: number): UpdateStats {
  const { algo } = recipe;
  const T = algo.temperature;
  const eta = algo.lr * LR_SCALE;
  const chunks = splitInto(groups, miniBatches);
  let clipped = 0;
  let counted = 0;
  let pgLoss = 0;
  let gradNorm = 0;
  let updates = 0;
  for (const chunk of chunks) {
    const samples = chunk.flatMap(live);
    if (samples.length === 0) continue;
    const weights = lossWeights(samples, algo.lossAggregation, algo.maxResponseTokens);
    const grad = new Float64Array(policy.params.length);
    samples.forEach((s, i) => {
      const w = weights[i]!;
      const ratio = Math.exp(logProb(policy, s.action, T) - s.oldLogProb);
      const a = s.advantage;
      const bounded = Math.min(Math.max(ratio, 1 - algo.clip.low), 1 + algo.clip.high);
      pgLoss -= w * Math.min(ratio * a, bounded * a);
      counted++;
      if ((a > 0 && ratio > 1 + algo.clip.high) || (a < 0 && ratio < 1 - algo.clip.low)) clipped++;
      else if (a !== 0) addLogProbGrad(policy, s.action, T, -w * a * ratio, grad);
      if (algo.kl.mode === "loss" && algo.kl.coef > 0) addKlGrad(policy, reference, s.task.difficulty, T, w * algo.kl.coef, grad);
      if (algo.entropyCoef > 0) addEntropyGrad(policy, s.task.difficulty, T, -w * algo.entropyCoef, grad);
    });
    const skill = grad.length - 1;
    let norm = 0;
    for (let k = 0; k < skill; k++) norm += grad[k]! ** 2;
    norm = Math.sqrt(norm);
    const scale = norm > MAX_GRAD_NORM ? MAX_GRAD_NORM / norm : 1;
    for (let k = 0; k < skill; k++) policy.params[k] = policy.params[k]! - eta * scale * grad[k]!;
    policy.params[skill] = policy.params[skill]! - SKILL_STEP * grad[skill]!;
    gradNorm += norm;
    updates++;
  }
  const all = groups.flatMap(live);
  let kl = 0;
  let ppoKl = 0;
  let ent = 0;
  for (const s of all) {
    kl += klToReference(policy, reference, s.task.difficulty, T);
    ppoKl += s.oldLogProb - logProb(policy, s.action, T);
    ent += s.entropy;
  }
  const n = Math.max(1, all.length);
  return {
    pgLoss: pgLoss / Math.max(1, updates),
    clipFraction: counted === 0 ? 0 : clipped / counted,
    klLoss: kl / n,
    ppoKl: ppoKl / n,
    gradNorm: updates === 0 ? 0 : gradNorm / updates,
    entropy: ent / n,
  };
}

function splitInto<T>(items: readonly T[], parts: number): T[][] {
  const k = Math.max(1, Math.min(parts, items.length));
  const out: T[][] = Array.from({ length: k }, () => []);
  items.forEach((item, i) => out[Math.floor((i * k) / items.length)]!.push(item));
  return out;
}
