import type { Recipe } from "@evotrainer/core";
import { down, falsifiedUnless, hypothesis, type Change } from "../change.ts";

const WHY: Record<keyof Recipe["env"], string> = {
  clearGitHistory: "with the history cleared there is no reference fix left to read",
  readOnlyTests: "with the tests read-only an edit to them fails, so passing tests again means the code works",
  hideTestFiles: "a test the agent cannot see cannot be special-cased",
  networkOff: "with no network the answer cannot be fetched",
};

/** Close the hole in the environment instead of punishing its use. */
export function envHardening(flag: keyof Recipe["env"], label: string): Change {
  const target = down(`label_rate.${label}`);
  return {
    id: `env-${flag}`,
    propose(ctx) {
      if (ctx.recipe.env[flag]) return undefined;
      return {
        hypothesis: hypothesis(
          `the environment sets ${flag}`,
          `label_rate.${label} (now ${(ctx.report.metrics.label_rate[label] ?? 0).toFixed(4)}) falls to about 0`,
          WHY[flag],
        ),
        targetMetric: target.metric,
        factor: `env.${flag}`,
        patch: [{ op: "replace", path: `/env/${flag}`, value: true }],
        expectedEffect: { direction: target.direction, size: ctx.report.metrics.label_rate[label] ?? 0 },
        falsification: falsifiedUnless(ctx, target),
      };
    },
  };
}
