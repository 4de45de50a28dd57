import type { Rollout } from "@evotrainer/contract";
import { seededRandom } from "./random.ts";
import { mean, quantileSorted } from "./stats.ts";

/**
 * Per-task mean score over the samples of the promotion split: the unit the gate resamples, since
 * samples of one task are not independent. A rollout a validity detector flagged scores 0.
 */
export function taskScores(rollouts: Iterable<Rollout>, invalid: ReadonlySet<string> = new Set()): Map<string, number> {
  const sums = new Map<string, { s: number; n: number }>();
  for (const r of rollouts) {
    if (r.split !== "promotion" || r.reward === null) continue;
    const acc = sums.get(r.taskId) ?? { s: 0, n: 0 };
    acc.s += invalid.has(r.uid) ? 0 : r.reward;
    acc.n++;
    sums.set(r.taskId, acc);
  }
  return new Map([...sums].map(([t, { s, n }]) => [t, s / n]));
}

export interface BootstrapResult {
  tasks: number;
  /** Observed mean of (candidate - baseline) over paired tasks. */
  delta: number;
  ci: [number, number];
  confidence: number;
  /** Share of resamples whose mean difference is <= 0. */
  pNotBetter: number;
}

/** Seeded paired bootstrap of the mean per-task difference, over the tasks both sides evaluated. */
export function pairedBootstrap(
  candidate: ReadonlyMap<string, number>,
  baseline: ReadonlyMap<string, number>,
  options: { seed: number; resamples?: number; confidence?: number },
): BootstrapResult {
  const resamples = options.resamples ?? 2000;
  const confidence = options.confidence ?? 0.95;
  const tasks = [...candidate.keys()].filter((t) => baseline.has(t)).sort();
  const diffs = tasks.map((t) => candidate.get(t)! - baseline.get(t)!);
  if (diffs.length === 0) return { tasks: 0, delta: 0, ci: [0, 0], confidence, pNotBetter: 1 };
  const rand = seededRandom(options.seed);
  const means = new Float64Array(resamples);
  let notBetter = 0;
  for (let b = 0; b < resamples; b++) {
    let s = 0;
    for (let i = 0; i < diffs.length; i++) s += diffs[Math.floor(rand() * diffs.length)]!;
    means[b] = s / diffs.length;
    if (means[b]! <= 0) notBetter++;
  }
  const sorted = Array.from(means).sort((a, b) => a - b);
  const alpha = 1 - confidence;
  return {
    tasks: diffs.length,
    delta: mean(diffs),
    ci: [quantileSorted(sorted, alpha / 2), quantileSorted(sorted, 1 - alpha / 2)],
    confidence,
    pNotBetter: notBetter / resamples,
  };
}
