import { down, falsifiedUnless, hypothesis, type Change } from "../change.ts";

const MAX_GROUP = 64;
const target = down("dead_group_ratio");

/** Twice the samples per prompt: a task solved now and then gets a mixed group more often. */
export const largerGroup: Change = {
  id: "larger-group",
  propose(ctx) {
    const { groupSize } = ctx.recipe.algo;
    if (groupSize >= MAX_GROUP) return undefined;
    const next = Math.min(MAX_GROUP, groupSize * 2);
    return {
      hypothesis: hypothesis(
        `the group size goes from ${groupSize} to ${next}`,
        `dead_group_ratio falls from ${ctx.report.metrics.dead_group_ratio.toFixed(4)}`,
        "a task the policy solves with probability p yields an all-equal group with probability p^n + (1-p)^n, which shrinks with n",
      ),
      targetMetric: target.metric,
      factor: "algo.groupSize",
      patch: [{ op: "replace", path: "/algo/groupSize", value: next }],
      expectedEffect: { direction: target.direction },
      falsification: falsifiedUnless(ctx, target),
    };
  },
};
