import { down, falsifiedUnless, hypothesis, type Change } from "../change.ts";

const target = down("dead_group_ratio");

/** Keep tasks the policy sometimes solves: all-fail and all-pass tasks give no signal. */
export const curriculum: Change = {
  id: "curriculum",
  propose(ctx) {
    if (ctx.recipe.data.curriculum.enabled) return undefined;
    return {
      hypothesis: hypothesis(
        "a difficulty curriculum keeps tasks with a pass rate between 5% and 95%",
        `dead_group_ratio falls from ${ctx.report.metrics.dead_group_ratio.toFixed(4)}`,
        "tasks the policy always or never solves produce groups with identical rewards",
      ),
      targetMetric: target.metric,
      factor: "data.curriculum",
      patch: [{ op: "replace", path: "/data/curriculum", value: { enabled: true, minPassRate: 0.05, maxPassRate: 0.95 } }],
      expectedEffect: { direction: target.direction },
      falsification: falsifiedUnless(ctx, target),
    };
  },
};
