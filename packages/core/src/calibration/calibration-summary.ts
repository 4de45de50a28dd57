import { mean } from "../stats.ts";
import type { CalibrationRecord } from "./calibration-record.ts";

export interface CalibrationSummary {
  branches: number;
  /** Branches whose targeted metric was reported on both sides. */
  compared: number;
  signAgreements: number;
  /** Share of compared branches where prediction and outcome moved the same way (flat counts as a direction). */
  signAgreementRate: number | null;
  /** Branches whose prediction is in the metric's own units (basis "direct"): the only sizes an error means something for. */
  sized: number;
  meanAbsError: number | null;
  /** Mean of predicted − realised: positive when the backtest overstates. */
  meanError: number | null;
}

/** How well a run's backtests predicted what its branches realised. */
export function calibrationSummary(records: readonly CalibrationRecord[]): CalibrationSummary {
  const compared = records.filter((r) => r.realised !== undefined);
  const signAgreements = compared.filter((r) => r.predicted.direction === r.realised!.direction).length;
  const errors = compared.filter((r) => r.predicted.basis === "direct").map((r) => r.predicted.size - r.realised!.delta);
  return {
    branches: records.length,
    compared: compared.length,
    signAgreements,
    signAgreementRate: compared.length === 0 ? null : signAgreements / compared.length,
    sized: errors.length,
    meanAbsError: errors.length === 0 ? null : mean(errors.map(Math.abs)),
    meanError: errors.length === 0 ? null : mean(errors),
  };
}
