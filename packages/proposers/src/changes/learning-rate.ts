import { falsifiedUnless, hypothesis, up, type Change } from "../change.ts";

const target = up("trainer.entropy");

/** Half the learning rate: smaller steps collapse the policy onto a few behaviours more slowly. */
export const lowerLearningRate: Change = {
  id: "lower-lr",
  propose(ctx) {
    const { lr } = ctx.recipe.algo;
    const next = lr / 2;
    return {
      hypothesis: hypothesis(
        `the learning rate goes from ${lr} to ${next}`,
        "trainer.entropy stays higher",
        "large updates push probability mass onto whatever was rewarded last and the policy stops exploring",
      ),
      targetMetric: target.metric,
      factor: "algo.lr",
      patch: [{ op: "replace", path: "/algo/lr", value: next }],
      expectedEffect: { direction: target.direction },
      falsification: falsifiedUnless(ctx, target),
    };
  },
};
