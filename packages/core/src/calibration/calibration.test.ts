import { describe, expect, it } from "vitest";
import type { Prediction } from "../backtest.ts";
import { computeMetrics, type BranchMetrics } from "../harness/metrics.ts";
import { calibrationRecord } from "./calibration-record.ts";
import { calibrationSummary } from "./calibration-summary.ts";
import { realisedEffect } from "./realised-effect.ts";

function metrics(values: Partial<BranchMetrics>): BranchMetrics {
  return { ...computeMetrics([], []).metrics, ...values };
}
function predicted(metric: string, direction: Prediction["direction"], size: number, basis: Prediction["basis"] = "direct"): Prediction {
  return { metric, direction, size, basis, agreesWithExpectation: true };
}

describe("realisedEffect", () => {
  it("reads the targeted metric on parent and child, scalars and map entries alike", () => {
    expect(realisedEffect("dead_group_ratio", metrics({ dead_group_ratio: 0.6 }), metrics({ dead_group_ratio: 0.2 }))).toEqual({
      metric: "dead_group_ratio", before: 0.6, after: 0.2, delta: 0.2 - 0.6, direction: "down",
    });
    const labelled = (rate: number) => metrics({ label_rate: { format_error: rate } });
    expect(realisedEffect("label_rate.format_error", labelled(0.1), labelled(0.1))?.direction).toBe("flat");
    expect(realisedEffect("trainer.entropy", metrics({ trainer: { entropy: 0.02 } }), metrics({}))).toBeUndefined();
  });
});

describe("calibrationSummary", () => {
  it("reports sign agreement over compared branches and size errors over direct predictions", () => {
    const records = [
      // Predicted −0.5, realised −0.4: right sign, overstated by 0.1.
      calibrationRecord("b1", predicted("dead_group_ratio", "down", -0.5), metrics({ dead_group_ratio: 0.6 }), metrics({ dead_group_ratio: 0.2 })),
      // Predicted −0.3, realised +0.05: wrong sign.
      calibrationRecord("b2", predicted("truncation_rate", "down", -0.3), metrics({ truncation_rate: 0.3 }), metrics({ truncation_rate: 0.35 })),
      // A proxy prediction: its sign counts, its size (another quantity's units) does not.
      calibrationRecord("b3", predicted("pass_rate", "up", 0.7, "proxy"), metrics({ pass_rate: 0.4 }), metrics({ pass_rate: 0.5 })),
      // The child does not report the metric: nothing to compare.
      calibrationRecord("b4", predicted("trainer.entropy", "up", 0.01, "proxy"), metrics({ trainer: { entropy: 0.02 } }), metrics({})),
    ];
    expect(records[0]).toMatchObject({ branchId: "b1", metric: "dead_group_ratio", predicted: { direction: "down", size: -0.5, basis: "direct" }, realised: { before: 0.6, after: 0.2, direction: "down" } });
    expect(records[3]!.realised).toBeUndefined();

    const s = calibrationSummary(records);
    expect(s).toMatchObject({ branches: 4, compared: 3, signAgreements: 2, sized: 2 });
    expect(s.signAgreementRate).toBeCloseTo(2 / 3, 12);
    expect(s.meanAbsError).toBeCloseTo((0.1 + 0.35) / 2, 12);
    expect(s.meanError).toBeCloseTo((-0.1 - 0.35) / 2, 12);
  });

  it("has no rates on an empty history", () => {
    expect(calibrationSummary([])).toEqual({ branches: 0, compared: 0, signAgreements: 0, signAgreementRate: null, sized: 0, meanAbsError: null, meanError: null });
  });
});
