import { seededRandom } from "../random.ts";
import { mean } from "../stats.ts";
import { studentTUpperTail } from "../gate/student-t.ts";

export interface PermutationTest {
  /** mean(rejected rates) − mean(promoted rates). */
  statistic: number;
  p: number;
  /** Relabellings counted: all of them (exact) or a seeded sample. */
  permutations: number;
  exact: boolean;
}

function* combinations(n: number, k: number): Generator<number[]> {
  const idx = Array.from({ length: k }, (_, i) => i);
  while (true) {
    yield idx;
    let i = k - 1;
    while (i >= 0 && idx[i] === n - k + i) i--;
    if (i < 0) return;
    idx[i]!++;
    for (let j = i + 1; j < k; j++) idx[j] = idx[j - 1]! + 1;
  }
}

const EXACT_LIMIT = 20_000;

/**
 * One-sided permutation test of branch-level rates: under the null the outcome labels are
 * exchangeable, so the p-value is the share of relabellings (same number promoted) whose rate
 * difference is at least the observed one. With 1 promoted of 5 branches the smallest possible
 * p-value is 1/5: such evidence can never pass at 0.05.
 */
export function branchPermutationTest(promoted: readonly number[], rejected: readonly number[], seed = 1): PermutationTest {
  const all = [...promoted, ...rejected];
  const n = all.length;
  const k = promoted.length;
  const total = all.reduce((a, b) => a + b, 0);
  const diff = (promotedSum: number) => (total - promotedSum) / (n - k) - promotedSum / k;
  const statistic = mean(rejected) - mean(promoted);
  if (k === 0 || k === n) return { statistic: 0, p: 1, permutations: 0, exact: true };
  const tolerance = 1e-12;
  let count = 0;
  let perms = 0;
  let exhaustive = true;
  let c = 1;
  for (let i = 0; i < k; i++) c = (c * (n - i)) / (i + 1);
  if (c <= EXACT_LIMIT) {
    for (const pick of combinations(n, k)) {
      perms++;
      if (diff(pick.reduce((s, i) => s + all[i]!, 0)) >= statistic - tolerance) count++;
    }
  } else {
    exhaustive = false;
    const rand = seededRandom(seed);
    const order = all.map((_, i) => i);
    for (let b = 0; b < EXACT_LIMIT; b++) {
      for (let i = 0; i < k; i++) {
        const j = i + Math.floor(rand() * (n - i));
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      perms++;
      if (diff(order.slice(0, k).reduce((s, i) => s + all[i]!, 0)) >= statistic - tolerance) count++;
    }
    // The observed labelling counts as one of the draws (Phipson & Smyth 2010).
    count++;
    perms++;
  }
  return { statistic, p: count / perms, permutations: perms, exact: exhaustive };
}

export interface ProportionTest {
  rejectedRate: number;
  promotedRate: number;
  /** Branches per side: the independent units the variance is estimated over. */
  branches: { rejected: number; promoted: number };
  /** (rejectedRate − promotedRate) / its branch-clustered standard error. */
  z: number;
  /** Degrees of freedom of the t reference: branches − 2. */
  df: number;
  p: number;
}

/** A side's pooled rate Σflagged / Σn and its variance with branches as clusters (linearisation of the ratio). */
function clusteredRate(branches: readonly { flagged: number; n: number }[]): { rate: number; variance: number } {
  const total = branches.reduce((a, b) => a + b.n, 0);
  const rate = total ? branches.reduce((a, b) => a + b.flagged, 0) / total : 0;
  const k = branches.length;
  if (k < 2 || total === 0) return { rate, variance: Number.POSITIVE_INFINITY };
  const ss = branches.reduce((a, b) => a + (b.flagged - rate * b.n) ** 2, 0);
  return { rate, variance: (k / (k - 1)) * ss / total ** 2 };
}

/**
 * Rollout-level check made at branch level: the label is more frequent among the rollouts of
 * rejected branches than among those of promoted ones, one-sided, with the standard error computed
 * over branches (cluster-robust), since the rollouts of one branch share its policy and are not
 * independent: a z-test over rollouts read p = 2e-126 for one pair of branches. Student's t on
 * branches − 2 degrees of freedom.
 */
export function clusteredProportionTest(rejected: readonly { flagged: number; n: number }[], promoted: readonly { flagged: number; n: number }[]): ProportionTest {
  const r = clusteredRate(rejected);
  const q = clusteredRate(promoted);
  const df = rejected.length + promoted.length - 2;
  const se = Math.sqrt(r.variance + q.variance);
  const difference = r.rate - q.rate;
  const base = { rejectedRate: r.rate, promotedRate: q.rate, branches: { rejected: rejected.length, promoted: promoted.length }, df };
  if (!Number.isFinite(se) || df < 1) return { ...base, z: 0, p: 1 };
  // Every branch of each side flags at exactly its side's rate: the sides differ or they do not.
  if (se === 0) return { ...base, z: 0, p: difference > 0 ? 0 : 1 };
  const z = difference / se;
  return { ...base, z, p: studentTUpperTail(z, df) };
}
