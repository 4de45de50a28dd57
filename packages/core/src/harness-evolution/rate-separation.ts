import { mean } from "../stats.ts";

export interface RateSeparation {
  promotedMean: number;
  rejectedMean: number;
  /** rejectedMean − promotedMean: a detector of a failure mode fires more on rejected branches. */
  difference: number;
  /** Probability that a rejected branch's rate exceeds a promoted branch's (ties count half). */
  auc: number;
}

/** How well per-branch rates of one label tell rejected branches from promoted ones. */
export function rateSeparation(promoted: readonly number[], rejected: readonly number[]): RateSeparation {
  let wins = 0;
  for (const r of rejected) for (const p of promoted) wins += r > p ? 1 : r === p ? 0.5 : 0;
  const pairs = promoted.length * rejected.length;
  const promotedMean = mean(promoted);
  const rejectedMean = mean(rejected);
  return { promotedMean, rejectedMean, difference: rejectedMean - promotedMean, auc: pairs === 0 ? 0.5 : wins / pairs };
}
