import { down, falsifiedUnless, hypothesis, type Change } from "../change.ts";

const MAX_TEMPERATURE = 1.2;
const target = down("dead_group_ratio");

/** A hotter sampler: samples of one prompt differ more, so their rewards do too. */
export const hotterSampling: Change = {
  id: "hotter-sampling",
  propose(ctx) {
    const { temperature } = ctx.recipe.algo;
    if (temperature >= MAX_TEMPERATURE) return undefined;
    const next = Math.round(Math.min(MAX_TEMPERATURE, temperature + 0.2) * 100) / 100;
    return {
      hypothesis: hypothesis(
        `the rollout temperature goes from ${temperature} to ${next}`,
        `dead_group_ratio falls from ${ctx.report.metrics.dead_group_ratio.toFixed(4)}`,
        "more diverse samples within a group make equal rewards across the whole group less likely",
      ),
      targetMetric: target.metric,
      factor: "algo.temperature",
      patch: [{ op: "replace", path: "/algo/temperature", value: next }],
      expectedEffect: { direction: target.direction },
      falsification: falsifiedUnless(ctx, target),
    };
  },
};
