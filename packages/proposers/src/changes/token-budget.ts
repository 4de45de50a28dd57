import { down, falsifiedUnless, hypothesis, type Change } from "../change.ts";

const MAX_TOKENS = 32_768;
const target = down("truncation_rate");

/** Twice the response budget: for tasks that need longer answers than the limit allows. */
export const largerTokenBudget: Change = {
  id: "larger-token-budget",
  propose(ctx) {
    const max = ctx.recipe.algo.maxResponseTokens;
    if (max >= MAX_TOKENS) return undefined;
    const next = Math.min(MAX_TOKENS, max * 2);
    return {
      hypothesis: hypothesis(
        `the response limit goes from ${max} to ${next} tokens`,
        `truncation_rate falls from ${ctx.report.metrics.truncation_rate.toFixed(4)}`,
        "responses cut at the limit lose their final answer and score 0 whatever their reasoning",
      ),
      targetMetric: target.metric,
      factor: "algo.maxResponseTokens",
      patch: [{ op: "replace", path: "/algo/maxResponseTokens", value: next }],
      expectedEffect: { direction: target.direction, size: ctx.report.metrics.truncation_rate / 2 },
      falsification: falsifiedUnless(ctx, target),
    };
  },
};
