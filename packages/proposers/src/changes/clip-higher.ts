import { falsifiedUnless, hypothesis, up, type Change } from "../change.ts";

const MAX_CLIP_HIGH = 0.5;
const target = up("trainer.entropy");

/** DAPO clip-higher: a looser upper clip lets unlikely tokens gain probability, which keeps entropy up. */
export const clipHigher: Change = {
  id: "clip-higher",
  propose(ctx) {
    const { high } = ctx.recipe.algo.clip;
    if (high >= MAX_CLIP_HIGH) return undefined;
    const next = Math.round(Math.min(MAX_CLIP_HIGH, Math.max(0.28, high + 0.08)) * 100) / 100;
    return {
      hypothesis: hypothesis(
        `the upper clip ratio goes from ${high} to ${next}`,
        "trainer.entropy stops collapsing",
        "with a tight upper clip a low-probability token can only grow by a little per update, so exploration dies first",
      ),
      targetMetric: target.metric,
      factor: "algo.clip.high",
      patch: [{ op: "replace", path: "/algo/clip/high", value: next }],
      expectedEffect: { direction: target.direction },
      falsification: falsifiedUnless(ctx, target),
    };
  },
};
