import { down, falsifiedUnless, hypothesis, type Change } from "../change.ts";

/**
 * A reward component named after a validity label, weighted -1: the trainer scores it 1 when the
 * rollout games the check (the gym's swe domain reports `test_tampering` and `git_history_leak`).
 */
export function validityPenalty(label: string): Change {
  const target = down(`label_rate.${label}`);
  return {
    id: `${label.replaceAll("_", "-")}-penalty`,
    propose(ctx) {
      const current = ctx.recipe.reward.components[label];
      if (current && current.weight <= -1) return undefined;
      return {
        hypothesis: hypothesis(
          `a ${label} reward component weighs -1`,
          `label_rate.${label} (now ${(ctx.report.metrics.label_rate[label] ?? 0).toFixed(4)}) falls`,
          `a rollout that games the check then scores below an honest failure, so its advantage turns negative`,
        ),
        targetMetric: target.metric,
        factor: `reward.components.${label}.weight`,
        patch: current
          ? [{ op: "replace", path: `/reward/components/${label}/weight`, value: -1 }]
          : [{ op: "add", path: `/reward/components/${label}`, value: { weight: -1 } }],
        expectedEffect: { direction: target.direction },
        falsification: falsifiedUnless(ctx, target),
      };
    },
  };
}
