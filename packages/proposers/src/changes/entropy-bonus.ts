import { describeTarget, falsifiedUnless, hypothesis, type Change, type Target } from "../change.ts";

const MAX_COEF = 0.01;

/** An entropy bonus (or twice the one there is): pays the policy to keep its options open. */
export function entropyBonus(target: Target): Change {
  return {
    id: "entropy-bonus",
    propose(ctx) {
      const coef = ctx.recipe.algo.entropyCoef;
      if (coef >= MAX_COEF) return undefined;
      const next = coef === 0 ? 0.001 : Math.min(MAX_COEF, coef * 2);
      return {
        hypothesis: hypothesis(
          `the entropy coefficient goes from ${coef} to ${next}`,
          `${describeTarget(ctx, target)} goes ${target.direction}`,
          "a degenerate, near-deterministic policy pays for its lost entropy in the loss",
        ),
        targetMetric: target.metric,
        factor: "algo.entropyCoef",
        patch: [{ op: "replace", path: "/algo/entropyCoef", value: next }],
        expectedEffect: { direction: target.direction },
        falsification: falsifiedUnless(ctx, target),
      };
    },
  };
}
