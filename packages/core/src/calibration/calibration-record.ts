import type { Prediction } from "../backtest.ts";
import type { BranchMetrics } from "../harness/metrics.ts";
import { realisedEffect, type RealisedEffect } from "./realised-effect.ts";

/** What a finished branch keeps for calibration: the backtest's prediction next to what training realised. */
export interface CalibrationRecord {
  branchId: string;
  metric: string;
  predicted: Pick<Prediction, "direction" | "size" | "basis">;
  realised?: RealisedEffect;
}

export function calibrationRecord(
  branchId: string,
  predicted: Prediction,
  parent: BranchMetrics,
  child: BranchMetrics,
  tolerance?: number,
): CalibrationRecord {
  const realised = realisedEffect(predicted.metric, parent, child, tolerance);
  return {
    branchId,
    metric: predicted.metric,
    predicted: { direction: predicted.direction, size: predicted.size, basis: predicted.basis },
    ...(realised ? { realised } : {}),
  };
}
