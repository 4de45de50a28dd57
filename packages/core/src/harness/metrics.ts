import { hasResult, type Rollout } from "@evotrainer/contract";
import { isDeadGroup } from "../dead-group.ts";
import { groupBy, mean, pearson, std } from "../stats.ts";
import type { Label } from "./detector.ts";

/** Aggregate signals of one branch (or one step), named as health rules see them. */
export interface BranchMetrics {
  rollouts: number;
  groups: number;
  reward_mean: number;
  reward_std: number;
  pass_rate: number;
  dead_group_ratio: number;
  truncation_rate: number;
  length_reward_corr: number;
  mean_response_tokens: number;
  label_rate: Record<string, number>;
  label_count: Record<string, number>;
  trainer: Record<string, number>;
}

/** Example rollout uids behind each metric, for evidence in reports. */
export interface MetricExamples {
  dead_group_ratio: string[];
  truncation_rate: string[];
  pass_rate: string[];
  label_rate: Record<string, string[]>;
}

export interface MetricOptions {
  /** A rollout succeeds when its reward reaches this and no validity detector flagged it. */
  successThreshold?: number;
  /** Trainer-reported metrics (entropy, KL, clip fraction…), passed through as they are. */
  trainer?: Record<string, number>;
  /** Labels to report even at rate 0, so rules can read any of the harness's labels. */
  knownLabels?: readonly string[];
  maxExamples?: number;
}

export function isSuccess(r: Rollout, invalid: ReadonlySet<string>, threshold: number): boolean {
  return r.reward !== null && r.reward >= threshold && !invalid.has(r.uid);
}

/**
 * A rollout fails when its reward is under the threshold or a validity detector flagged it. One
 * without a known result and no validity flag is neither a failure nor a success.
 */
export function isFailure(r: Rollout, invalid: ReadonlySet<string>, threshold: number): boolean {
  return invalid.has(r.uid) || (r.reward !== null && r.reward < threshold);
}

/** The rollouts carrying each label (a rollout counts once however many detectors gave it), labels sorted. */
export function labelledRollouts(labels: readonly Pick<Label, "label" | "rolloutUid">[], knownLabels: readonly string[] = []): Map<string, Set<string>> {
  const labelUids = new Map<string, Set<string>>();
  for (const l of knownLabels) labelUids.set(l, new Set());
  for (const l of labels) {
    const set = labelUids.get(l.label) ?? new Set<string>();
    set.add(l.rolloutUid);
    labelUids.set(l.label, set);
  }
  return new Map([...labelUids].sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * A branch's label rates: labelled rollouts over all rollouts of the window. The one definition the
 * health report (diagnosis, backtest, verdict), the run report and the dashboard share.
 */
export function labelRates(rollouts: number, labelUids: ReadonlyMap<string, ReadonlySet<string>>): Record<string, number> {
  return Object.fromEntries([...labelUids].map(([label, uids]) => [label, rollouts === 0 ? 0 : uids.size / rollouts]));
}

export function computeMetrics(
  rollouts: readonly Rollout[],
  labels: readonly Label[],
  options: MetricOptions = {},
): { metrics: BranchMetrics; examples: MetricExamples } {
  const threshold = options.successThreshold ?? 0.5;
  const maxExamples = options.maxExamples ?? 5;
  const invalid = new Set(labels.filter((l) => l.validity).map((l) => l.rolloutUid));
  const truncatedByLabel = new Set(labels.filter((l) => l.label === "truncated").map((l) => l.rolloutUid));

  // Reward statistics read the rollouts with a known result; label and length ones read all.
  const scored = rollouts.filter(hasResult);
  const rewards = scored.map((r) => r.reward);
  const successes = scored.filter((r) => isSuccess(r, invalid, threshold));
  const truncated = rollouts.filter((r) => r.truncated || r.finishReason === "length" || truncatedByLabel.has(r.uid));
  const groups = [...groupBy(scored, (r) => r.groupId).values()].filter((g) => g.length >= 2);
  const dead = groups.filter((g) => isDeadGroup(g.map((r) => r.reward)));

  const n = rollouts.length;
  const labelUids = labelledRollouts(labels, options.knownLabels);
  const label_rate = labelRates(n, labelUids);
  const label_count: Record<string, number> = {};
  const labelExamples: Record<string, string[]> = {};
  for (const [label, uids] of labelUids) {
    label_count[label] = uids.size;
    labelExamples[label] = [...uids].slice(0, maxExamples);
  }

  return {
    metrics: {
      rollouts: n,
      groups: groups.length,
      reward_mean: mean(rewards),
      reward_std: std(rewards),
      pass_rate: scored.length === 0 ? 0 : successes.length / scored.length,
      dead_group_ratio: groups.length === 0 ? 0 : dead.length / groups.length,
      truncation_rate: n === 0 ? 0 : truncated.length / n,
      length_reward_corr: pearson(scored.map((r) => r.responseTokens), rewards),
      mean_response_tokens: mean(rollouts.map((r) => r.responseTokens)),
      label_rate,
      label_count,
      trainer: { ...options.trainer },
    },
    examples: {
      dead_group_ratio: dead.slice(0, maxExamples).map((g) => g[0]!.uid),
      truncation_rate: truncated.slice(0, maxExamples).map((r) => r.uid),
      pass_rate: scored.filter((r) => !isSuccess(r, invalid, threshold)).slice(0, maxExamples).map((r) => r.uid),
      label_rate: labelExamples,
    },
  };
}
