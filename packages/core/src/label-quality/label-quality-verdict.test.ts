import { describe, expect, it } from "vitest";
import { gatePolicySchema } from "../harness/harness.ts";
import { computeMetrics } from "../harness/metrics.ts";
import { verdict, type GateSide } from "../verdict.ts";

function side(score: number, tamperingRate: number): GateSide {
  const { metrics } = computeMetrics([], [], {});
  return {
    taskScores: new Map(Array.from({ length: 40 }, (_, i) => [`t${i}`, score + (i % 4) * 0.01])),
    report: { metrics: { ...metrics, label_rate: { test_tampering: tamperingRate } }, layers: { score: [], signal: [], behaviour: [] } },
  };
}

describe("the verdict with gate.labelQuality", () => {
  const base = { parent: side(0.5, 0), intervention: { targetMetric: "reward_mean", expectedEffect: { direction: "up" as const } }, seed: 1, vsControl: null };
  const policy = (labelQuality?: { minPrecision: number; minReviews: number }) => gatePolicySchema.parse({ resamples: 200, validityLimits: { test_tampering: 0.05 }, ...(labelQuality ? { labelQuality } : {}) });

  it("sends a branch an unreviewed validity label would veto to a person, without promoting it", () => {
    const v = verdict({ ...base, candidate: side(0.7, 0.2), policy: policy({ minPrecision: 0.9, minReviews: 30 }), labelTrust: new Map([["test_tampering", { reviewed: 4, precision: 1 }]]) });
    expect(v.promote).toBe(false);
    expect(v.needsPerson).toEqual(["test_tampering is over its validity limit, but test_tampering has 4 reviewed labels, fewer than the 30 that gate.labelQuality.minReviews asks for"]);
  });

  it("vetoes on a label whose reviews meet the bar, and acts as before without the requirement", () => {
    const trusted = verdict({ ...base, candidate: side(0.7, 0.2), policy: policy({ minPrecision: 0.9, minReviews: 30 }), labelTrust: new Map([["test_tampering", { reviewed: 30, precision: 0.97 }]]) });
    expect(trusted.promote).toBe(false);
    expect(trusted.needsPerson).toBeUndefined();
    expect(trusted.checks.find((c) => c.name === "validity_limit")!.passed).toBe(false);
    expect(verdict({ ...base, candidate: side(0.7, 0.2), policy: policy() }).needsPerson).toBeUndefined();
  });
});
