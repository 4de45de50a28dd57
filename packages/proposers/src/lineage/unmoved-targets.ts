import type { LineageEntry } from "@evotrainer/core";

/** The key of "this factor, aimed at this metric". */
export const targetKey = (factor: string, targetMetric: string) => `${factor} → ${targetMetric}`;

/**
 * Factor and targeted metric of every intervention in the run whose verdict found the metric not
 * moved as predicted, on any parent: the label did not answer to that factor, and trying it again
 * (the gym-swe run spent 2 of 8 branches lowering format_error with the format weight, 1.0 → 1.0
 * both times) only spends budget. Another factor may still go after the same label.
 */
export function unmovedTargets(lineage: readonly LineageEntry[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of lineage) {
    if (!e.intervention || !e.verdict) continue;
    const check = e.verdict.checks.find((c) => c.name === "targeted_metric");
    if (check && !check.passed) out.set(targetKey(e.intervention.factor, e.intervention.targetMetric), check.detail);
  }
  return out;
}
