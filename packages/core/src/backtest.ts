import { hasResult, type Rollout, type ScoredRollout } from "@evotrainer/contract";
import { groupAdvantages } from "./advantages.ts";
import { isDeadGroup } from "./dead-group.ts";
import type { Label } from "./harness/detector.ts";
import type { EffectDirection, Intervention } from "./intervention.ts";
import type { Recipe } from "./recipe.ts";
import { closedExploits } from "./env-exploits.ts";
import { recipeScore, rescore } from "./reward-shaping.ts";
import { groupBy, mean, std } from "./stats.ts";

export interface BacktestInput {
  parent: Recipe;
  candidate: Recipe;
  intervention: Pick<Intervention, "targetMetric" | "expectedEffect">;
  /** The parent branch's logged training rollouts; groups are formed by `groupId`. */
  rollouts: readonly Rollout[];
  /** The parent's labels (validity labels make a rollout a failure whatever its reward). */
  labels: readonly Label[];
  successThreshold?: number;
  maxExamples?: number;
}

export interface AdvantagePair {
  scaled: number;
  unscaled: number;
}

export interface Prediction {
  metric: string;
  direction: EffectDirection | "flat";
  /** Change of the metric itself (basis "direct") or of its proxy (basis "proxy"). */
  size: number;
  basis: "direct" | "proxy";
  proxy?: string;
  agreesWithExpectation: boolean;
}

export interface BacktestReport {
  rollouts: number;
  groups: number;
  kept: { before: number; after: number };
  deadGroups: { before: number; after: number; rescued: number; killed: number; filteredOut: { before: number; after: number } };
  orderingViolations: { before: number; after: number; introduced: number; groupsAffected: number; exampleUids: string[] };
  /** Mean advantage per label (plus "_success" / "_failure") before and after, with and without std scaling. */
  advantageByLabel: Record<string, { count: number; before: AdvantagePair; after: AdvantagePair }>;
  wronglyCut: { count: number; rateOfSuccesses: number; exampleUids: string[] };
  metrics: { before: Record<string, number>; after: Record<string, number> };
  predicted: Prediction;
}

interface Side {
  reward: Float64Array;
  truncated: Uint8Array;
  /** In the loss: not masked, and its group not filtered. */
  kept: Uint8Array;
  scaled: Float64Array;
  unscaled: Float64Array;
  deadInBatch: Set<string>;
  filteredGroups: number;
}

/**
 * Replays an intervention on the parent's logged rollouts before any GPU is spent: re-scores them
 * under the patched reward (and without the exploits a hardened environment closes), re-applies
 * length limits and data filters, recomputes GRPO advantages, and predicts how the targeted metric moves.
 */
export function backtest(input: BacktestInput): BacktestReport {
  const { parent, candidate, labels } = input;
  // A rollout without a known result says nothing of what a recipe would make of it.
  const rollouts = input.rollouts.filter(hasResult);
  const threshold = input.successThreshold ?? 0.5;
  const maxExamples = input.maxExamples ?? 5;
  const n = rollouts.length;

  const invalid = new Set<string>();
  const labelsOf = new Map<string, string[]>();
  for (const l of labels) {
    if (l.validity) invalid.add(l.rolloutUid);
    const list = labelsOf.get(l.rolloutUid);
    if (list) list.push(l.label);
    else labelsOf.set(l.rolloutUid, [l.label]);
  }
  // Success is the logged outcome: the reward the parent saw, unless a validity detector vetoed it.
  const success = new Uint8Array(n);
  const index = new Map<ScoredRollout, number>();
  rollouts.forEach((r, i) => {
    index.set(r, i);
    success[i] = r.reward >= threshold && !invalid.has(r.uid) ? 1 : 0;
  });
  const groups = [...groupBy(rollouts, (r) => r.groupId)].map(([id, rs]) => ({ id, idx: rs.map((r) => index.get(r)!) }));

  const side = (recipe: Recipe, rewardOf: (r: ScoredRollout) => number): Side => {
    const reward = new Float64Array(n);
    const truncated = new Uint8Array(n);
    const kept = new Uint8Array(n);
    const scaled = new Float64Array(n);
    const unscaled = new Float64Array(n);
    const deadInBatch = new Set<string>();
    let filteredGroups = 0;
    const { dynamicSampling, overlongFilter, curriculum } = recipe.data;
    for (const g of groups) {
      const live: number[] = [];
      let passes = 0;
      for (const i of g.idx) {
        const r = rollouts[i]!;
        reward[i] = rewardOf(r);
        truncated[i] = r.truncated || r.finishReason === "length" || r.responseTokens > recipe.algo.maxResponseTokens ? 1 : 0;
        passes += success[i]!;
        if (!(overlongFilter && truncated[i])) live.push(i);
      }
      const passRate = passes / g.idx.length;
      const rewards = live.map((i) => reward[i]!);
      const dead = isDeadGroup(rewards);
      const outOfCurriculum = curriculum.enabled && (passRate < curriculum.minPassRate || passRate > curriculum.maxPassRate);
      if ((dynamicSampling.enabled && dead) || outOfCurriculum || live.length === 0) {
        filteredGroups++;
        continue;
      }
      if (dead) deadInBatch.add(g.id);
      const a = groupAdvantages(rewards, true);
      const b = groupAdvantages(rewards, false);
      live.forEach((i, k) => {
        kept[i] = 1;
        scaled[i] = a[k]!;
        unscaled[i] = b[k]!;
      });
    }
    return { reward, truncated, kept, scaled, unscaled, deadInBatch, filteredGroups };
  };

  const before = side(parent, (r) => r.reward);
  // A logged rollout that earned its reward through an exploit the candidate's environment closes
  // would not earn it there: it is replayed as if every reward component it scored had failed.
  const closed = closedExploits(parent, candidate);
  const exploited = (r: ScoredRollout) => closed.size > 0 && (labelsOf.get(r.uid) ?? []).some((l) => closed.has(l));
  const after = side(candidate, (r) => rescore(parent, candidate, exploited(r) ? withoutComponents(r, parent) : r));

  let rescued = 0;
  let killed = 0;
  for (const g of groups) {
    const wasDead = before.deadInBatch.has(g.id);
    const inAfter = g.idx.some((i) => after.kept[i]);
    if (wasDead && inAfter && !after.deadInBatch.has(g.id)) rescued++;
    if (!wasDead && g.idx.some((i) => before.kept[i]) && after.deadInBatch.has(g.id)) killed++;
  }

  const violations = (s: Side) => {
    const pairs = new Set<string>();
    for (const g of groups) {
      for (const f of g.idx) {
        if (success[f]) continue;
        for (const k of g.idx) if (success[k] && s.reward[f]! > s.reward[k]!) pairs.add(`${f}:${k}`);
      }
    }
    return pairs;
  };
  const vBefore = violations(before);
  const vAfter = violations(after);
  const introduced = [...vAfter].filter((p) => !vBefore.has(p));
  const affectedGroups = new Set(introduced.map((p) => rollouts[Number(p.split(":")[0])]!.groupId));

  const advantageByLabel: BacktestReport["advantageByLabel"] = {};
  const buckets = new Map<string, number[]>();
  for (let i = 0; i < n; i++) {
    const keys = [...(labelsOf.get(rollouts[i]!.uid) ?? []), success[i] ? "_success" : "_failure"];
    for (const k of new Set(keys)) {
      const list = buckets.get(k);
      if (list) list.push(i);
      else buckets.set(k, [i]);
    }
  }
  const avg = (s: Side, idx: number[], which: "scaled" | "unscaled") => {
    const kept = idx.filter((i) => s.kept[i]);
    return kept.length === 0 ? 0 : mean(kept.map((i) => s[which][i]!));
  };
  for (const [k, idx] of [...buckets].sort(([a], [b]) => a.localeCompare(b))) {
    advantageByLabel[k] = {
      count: idx.length,
      before: { scaled: avg(before, idx, "scaled"), unscaled: avg(before, idx, "unscaled") },
      after: { scaled: avg(after, idx, "scaled"), unscaled: avg(after, idx, "unscaled") },
    };
  }

  const cut: number[] = [];
  let successes = 0;
  for (let i = 0; i < n; i++) {
    if (!success[i]) continue;
    successes++;
    const lostByLimit = rollouts[i]!.responseTokens > candidate.algo.maxResponseTokens;
    const masked = before.kept[i] && !after.kept[i] && candidate.data.overlongFilter && after.truncated[i];
    if (lostByLimit || masked) cut.push(i);
  }

  const metrics = { before: batchMetrics(before, groups.length, success), after: batchMetrics(after, groups.length, success) };
  return {
    rollouts: n,
    groups: groups.length,
    kept: { before: count(before.kept), after: count(after.kept) },
    deadGroups: {
      before: before.deadInBatch.size,
      after: after.deadInBatch.size,
      rescued,
      killed,
      filteredOut: { before: before.filteredGroups, after: after.filteredGroups },
    },
    orderingViolations: {
      before: vBefore.size,
      after: vAfter.size,
      introduced: introduced.length,
      groupsAffected: affectedGroups.size,
      exampleUids: [...new Set(introduced.flatMap((p) => p.split(":").map((i) => rollouts[Number(i)]!.uid)))].slice(0, maxExamples),
    },
    advantageByLabel,
    wronglyCut: { count: cut.length, rateOfSuccesses: successes === 0 ? 0 : cut.length / successes, exampleUids: cut.slice(0, maxExamples).map((i) => rollouts[i]!.uid) },
    metrics,
    predicted: predict(input.intervention, metrics, advantageByLabel),
  };
}

/** The rollout with its reward components failed: the parent-controlled part of its reward gone, the rest kept. */
function withoutComponents(r: ScoredRollout, parent: Recipe): ScoredRollout {
  const failed = { ...r, rewardComponents: Object.fromEntries(Object.keys(r.rewardComponents).map((k) => [k, 0])) };
  return { ...failed, reward: r.reward - recipeScore(parent, r) + recipeScore(parent, failed) };
}

function count(a: Uint8Array): number {
  let c = 0;
  for (const x of a) c += x;
  return c;
}

// Metrics of the training batch a recipe would actually learn from.
function batchMetrics(s: Side, totalGroups: number, success: Uint8Array): Record<string, number> {
  const kept: number[] = [];
  for (let i = 0; i < s.kept.length; i++) if (s.kept[i]) kept.push(i);
  const rewards = kept.map((i) => s.reward[i]!);
  const batchGroups = totalGroups - s.filteredGroups;
  return {
    reward_mean: mean(rewards),
    reward_std: std(rewards),
    truncation_rate: kept.length === 0 ? 0 : kept.filter((i) => s.truncated[i]).length / kept.length,
    dead_group_ratio: batchGroups <= 0 ? 0 : s.deadInBatch.size / batchGroups,
    // How hard the batch pushes successes up and failures down (std-scaled advantages).
    success_signal: kept.length === 0 ? 0 : mean(kept.map((i) => (success[i] ? 1 : -1) * s.scaled[i]!)),
  };
}

function predict(
  intervention: BacktestInput["intervention"],
  metrics: BacktestReport["metrics"],
  advantageByLabel: BacktestReport["advantageByLabel"],
): Prediction {
  const metric = intervention.targetMetric;
  const expected = intervention.expectedEffect.direction;
  const direction = (delta: number): Prediction["direction"] => (Math.abs(delta) < 1e-9 ? "flat" : delta > 0 ? "up" : "down");
  const make = (delta: number, basis: Prediction["basis"], proxy?: string): Prediction => ({
    metric,
    direction: direction(delta),
    size: delta,
    basis,
    ...(proxy ? { proxy } : {}),
    agreesWithExpectation: direction(delta) === expected,
  });

  if (metric in metrics.before && metric !== "success_signal") return make(metrics.after[metric]! - metrics.before[metric]!, "direct");
  const label = /^label_rate\.(.+)$/.exec(metric)?.[1];
  if (label !== undefined) {
    // A label whose rollouts get a lower advantage should become rarer, so the rate follows the advantage.
    const a = advantageByLabel[label];
    return make(a ? a.after.scaled - a.before.scaled : 0, "proxy", `Δ mean advantage of ${label}`);
  }
  // Score-like metrics (pass rate, eval score): follow the success signal of the batch.
  return make(metrics.after.success_signal! - metrics.before.success_signal!, "proxy", "Δ success_signal");
}
