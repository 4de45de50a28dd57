import type { BranchMetrics } from "../harness/metrics.ts";
import type { EffectDirection } from "../intervention.ts";
import { metricValue } from "../verdict.ts";

export interface RealisedEffect {
  metric: string;
  before: number;
  after: number;
  delta: number;
  direction: EffectDirection | "flat";
}

/**
 * How the targeted metric actually moved from the parent's metrics to the child's; undefined when
 * either branch does not report it. Moves within `tolerance` count as flat.
 */
export function realisedEffect(metric: string, parent: BranchMetrics, child: BranchMetrics, tolerance = 1e-9): RealisedEffect | undefined {
  const before = metricValue(parent, metric);
  const after = metricValue(child, metric);
  if (before === undefined || after === undefined) return undefined;
  const delta = after - before;
  return { metric, before, after, delta, direction: Math.abs(delta) <= tolerance ? "flat" : delta > 0 ? "up" : "down" };
}
