import { down, falsifiedUnless, hypothesis, type Change } from "../change.ts";

const STEP = 0.2;
const MAX_WEIGHT = 1;

/** More weight on a shaping component (format: a final answer, a non-empty patch) whose absence a label reports. */
export function raiseComponentWeight(component: string, label: string): Change {
  const target = down(`label_rate.${label}`);
  return {
    id: `${component.replaceAll("_", "-")}-weight`,
    propose(ctx) {
      const current = ctx.recipe.reward.components[component];
      const weight = current?.weight ?? 0;
      if (weight >= MAX_WEIGHT) return undefined;
      const next = Math.round(Math.min(MAX_WEIGHT, weight + STEP) * 100) / 100;
      return {
        hypothesis: hypothesis(
          `the ${component} component's weight goes from ${weight} to ${next}`,
          `label_rate.${label} (now ${(ctx.report.metrics.label_rate[label] ?? 0).toFixed(4)}) falls`,
          `rollouts flagged ${label} miss what ${component} pays for, so within their group they get a lower advantage`,
        ),
        targetMetric: target.metric,
        factor: `reward.components.${component}.weight`,
        patch: current
          ? [{ op: "replace", path: `/reward/components/${component}/weight`, value: next }]
          : [{ op: "add", path: `/reward/components/${component}`, value: { weight: next } }],
        expectedEffect: { direction: target.direction },
        falsification: falsifiedUnless(ctx, target),
      };
    },
  };
}
