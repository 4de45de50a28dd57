import { down, falsifiedUnless, hypothesis, type Change } from "../change.ts";

/**
 * Zero the weight of a component the policy can satisfy without solving the task (visible tests
 * it can edit or hard-code), leaving the verified components to carry the reward. Only when such a
 * component remains: a reward of nothing but zeros teaches nothing.
 */
export function dropGameableComponent(component: string, label: string): Change {
  const target = down(`label_rate.${label}`);
  return {
    id: `drop-${component.replaceAll("_", "-")}`,
    propose(ctx) {
      const { components } = ctx.recipe.reward;
      const weight = components[component]?.weight ?? 0;
      const verified = Object.entries(components).filter(([name, c]) => name !== component && c.weight > 0);
      if (weight <= 0 || verified.length === 0) return undefined;
      return {
        hypothesis: hypothesis(
          `the ${component} component's weight goes from ${weight} to 0`,
          `label_rate.${label} (now ${(ctx.report.metrics.label_rate[label] ?? 0).toFixed(4)}) falls`,
          `${label} pays through ${component} alone, while ${verified.map(([n]) => n).join(", ")} cannot be gamed that way`,
        ),
        targetMetric: target.metric,
        factor: `reward.components.${component}.weight`,
        patch: [{ op: "replace", path: `/reward/components/${component}/weight`, value: 0 }],
        expectedEffect: { direction: target.direction },
        falsification: falsifiedUnless(ctx, target),
      };
    },
  };
}
