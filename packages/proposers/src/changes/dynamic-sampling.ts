import { down, falsifiedUnless, hypothesis, type Change } from "../change.ts";

const target = down("dead_group_ratio");

/** DAPO dynamic sampling: drop zero-variance groups and draw fresh ones. */
export const dynamicSampling: Change = {
  id: "dynamic-sampling",
  propose(ctx) {
    if (ctx.recipe.data.dynamicSampling.enabled) return undefined;
    const dead = ctx.report.metrics.dead_group_ratio;
    return {
      hypothesis: hypothesis(
        "dynamic sampling drops zero-variance groups and resamples",
        `dead_group_ratio of the training batch falls from ${dead.toFixed(4)} toward 0`,
        "a group whose rewards are all equal has zero GRPO advantage and teaches nothing",
      ),
      targetMetric: target.metric,
      factor: "data.dynamicSampling",
      patch: [{ op: "replace", path: "/data/dynamicSampling/enabled", value: true }],
      expectedEffect: { direction: target.direction, size: dead, note: "every dead group is replaced by one with signal" },
      falsification: falsifiedUnless(ctx, target),
    };
  },
};
