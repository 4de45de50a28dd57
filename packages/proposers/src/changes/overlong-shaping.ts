import { describeTarget, falsifiedUnless, hypothesis, type Change, type Target } from "../change.ts";

/**
 * DAPO soft overlong punishment: a linear penalty over the last quarter (at most the recipe's
 * buffer) of the length limit, so running long costs reward before it gets cut.
 */
export function overlongShaping(target: Target): Change {
  return {
    id: "overlong-shaping",
    propose(ctx) {
      const { overlong } = ctx.recipe.reward;
      if (overlong.enabled && overlong.penalty > 0) return undefined;
      const max = ctx.recipe.algo.maxResponseTokens;
      const bufferTokens = Math.max(1, Math.min(overlong.bufferTokens || max, Math.floor(max / 4)));
      return {
        hypothesis: hypothesis(
          `a soft overlong penalty ramps to -1 over the last ${bufferTokens} of ${max} tokens`,
          `${describeTarget(ctx, target)} goes ${target.direction}`,
          "responses that run into the limit (loops, rambling) then earn less than ones that finish in time",
        ),
        targetMetric: target.metric,
        factor: "reward.overlong",
        patch: [{ op: "replace", path: "/reward/overlong", value: { enabled: true, bufferTokens, penalty: 1 } }],
        expectedEffect: { direction: target.direction },
        falsification: falsifiedUnless(ctx, target),
      };
    },
  };
}
