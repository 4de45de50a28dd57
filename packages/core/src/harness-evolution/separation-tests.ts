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
  z: number;
  p: number;
}

/**
 * Rollout-level check: the label is more frequent among the rollouts of rejected branches than
 * among those of promoted ones (one-sided two-proportion z-test, pooled variance). Rollouts of one
 * branch are not independent, which is why the branch-level permutation test must hold as well.
 */
export function rolloutProportionTest(rejected: { flagged: number; n: number }, promoted: { flagged: number; n: number }): ProportionTest {
  const p1 = rejected.n ? rejected.flagged / rejected.n : 0;
  const p2 = promoted.n ? promoted.flagged / promoted.n : 0;
  const pooled = (rejected.flagged + promoted.flagged) / Math.max(1, rejected.n + promoted.n);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / Math.max(1, rejected.n) + 1 / Math.max(1, promoted.n)));
  const z = se === 0 ? 0 : (p1 - p2) / se;
  return { rejectedRate: p1, promotedRate: p2, z, p: se === 0 ? 1 : studentTUpperTail(z, Infinity) };
}
