import { describe, expect, it } from "vitest";
import { seededRandom } from "../random.ts";
import { detectorQuality, qualityText, reviewVerdict } from "./detector-quality.ts";
import { labelQualityHolds, untrustedLabelReason } from "./label-quality-gate.ts";
import { estimateRecall } from "./recall-estimate.ts";
import { reviewQueue, type ReviewQueueInput } from "./review-queue.ts";

const ids = (n: number, from = 0) => Array.from({ length: n }, (_, i) => String(from + i));

describe("estimateRecall", () => {
  it("adds the flagged rollouts a person confirmed to the weighted misses among unflagged ones", () => {
    // 100 flagged, 27 of 30 reviewed confirmed: ~90 true positives. 900 unflagged, 5 of a sample of 50 missed: ~90 misses.
    const sample = [...Array(5).fill({ missed: true, weight: 18 }), ...Array(45).fill({ missed: false, weight: 18 })];
    const r = estimateRecall({ flagged: 100, confirmed: 27, rejected: 3, unflagged: 900, sample })!;
    expect(r.truePositives).toBeCloseTo(90, 9);
    expect(r.missed).toBeCloseTo(90, 9);
    expect(r.recall).toBeCloseTo(0.5, 9);
    expect(r.effectiveSample).toBeCloseTo(50, 9);
    expect(r.interval[0]).toBeLessThan(0.5);
    expect(r.interval[1]).toBeGreaterThan(0.5);
    expect(r.interval[0]).toBeGreaterThan(0.2);
  });

  it("weights each reviewed rollout by its inverse inclusion probability", () => {
    // One miss drawn with probability 1/10 stands for 10 rollouts; nine non-misses drawn with certainty for one each.
    const sample = [{ missed: true, weight: 10 }, ...Array(9).fill({ missed: false, weight: 1 })];
    const r = estimateRecall({ flagged: 19, confirmed: 10, rejected: 0, unflagged: 19, sample })!;
    expect(r.missed).toBeCloseTo(19 * (10 / 19), 9);
    expect(r.recall).toBeCloseTo(19 / 29, 9);
    expect(r.effectiveSample).toBeCloseTo(361 / 109, 9);
  });

  it("is unknown without reviews on a side that has rollouts, or when no review found the label", () => {
    expect(estimateRecall({ flagged: 10, confirmed: 0, rejected: 0, unflagged: 90, sample: [{ missed: false, weight: 9 }] })).toBeNull();
    expect(estimateRecall({ flagged: 10, confirmed: 3, rejected: 0, unflagged: 90, sample: [] })).toBeNull();
    expect(estimateRecall({ flagged: 10, confirmed: 0, rejected: 4, unflagged: 90, sample: [{ missed: false, weight: 90 }] })).toBeNull();
  });

  it("is 1 with an interval below it when no sampled unflagged rollout was missed", () => {
    const r = estimateRecall({ flagged: 50, confirmed: 30, rejected: 0, unflagged: 950, sample: Array(30).fill({ missed: false, weight: 950 / 30 }) })!;
    expect(r.recall).toBe(1);
    expect(r.interval[1]).toBe(1);
    expect(r.interval[0]).toBeLessThan(0.5);
  });

  it("covers the true recall in at least 95% of queues drawn from populations with a known truth", () => {
    const random = seededRandom(29);
    let covered = 0;
    const trials = 300;
    for (let t = 0; t < trials; t++) {
      // 2,000 rollouts; the label truly holds on 10%; the detector flags 70% of those and 2% of the rest.
      const holds = new Set<string>();
      const flagged: string[] = [];
      for (const id of ids(2000)) {
        const h = random() < 0.1;
        if (h) holds.add(id);
        if (random() < (h ? 0.7 : 0.02)) flagged.push(id);
      }
      const truth = flagged.filter((id) => holds.has(id)).length / holds.size;
      const queue = reviewQueue({ detectors: [{ detectorId: "d", label: "x", population: ids(2000), flagged }], seed: `trial-${t}`, flaggedPerDetector: 30, unflaggedPerDetector: 150 });
      const reviewsOf = (stratum: string) => queue.filter((q) => q.stratum === stratum);
      const confirmed = reviewsOf("flagged").filter((q) => holds.has(q.rolloutId)).length;
      const r = estimateRecall({
        flagged: flagged.length,
        confirmed,
        rejected: reviewsOf("flagged").length - confirmed,
        unflagged: 2000 - flagged.length,
        sample: reviewsOf("unflagged").map((q) => ({ missed: holds.has(q.rolloutId), weight: q.weight })),
      });
      if (r && r.interval[0] <= truth && truth <= r.interval[1]) covered++;
    }
    expect(covered / trials).toBeGreaterThanOrEqual(0.95);
  });
});

describe("reviewQueue", () => {
  const input: ReviewQueueInput = {
    detectors: [
      { detectorId: "det-tool", label: "tool_error", population: ids(500), flagged: ids(200) },
      { detectorId: "det-trunc", label: "truncated", population: ids(500), flagged: ids(12, 300) },
    ],
    seed: "run-1/harness-1",
    flaggedPerDetector: 30,
    unflaggedPerDetector: 20,
  };

  it("samples each detector's flagged and unflagged rollouts with their inverse inclusion probabilities", () => {
    const queue = reviewQueue(input);
    const of = (detectorId: string, stratum: string) => queue.filter((q) => q.detectorId === detectorId && q.stratum === stratum);
    expect(of("det-tool", "flagged")).toHaveLength(30);
    expect(of("det-tool", "unflagged")).toHaveLength(20);
    // Fewer flagged rollouts than the sample size: all of them, each standing for itself.
    expect(of("det-trunc", "flagged")).toHaveLength(12);
    for (const q of of("det-tool", "flagged")) expect(q.weight).toBeCloseTo(200 / 30, 12);
    for (const q of of("det-tool", "unflagged")) expect(q.weight).toBeCloseTo(300 / 20, 12);
    for (const q of of("det-trunc", "flagged")) expect(q.weight).toBe(1);
    for (const q of of("det-trunc", "unflagged")) expect(q.weight).toBeCloseTo(488 / 20, 12);
    const toolFlagged = new Set(ids(200));
    expect(of("det-tool", "flagged").every((q) => toolFlagged.has(q.rolloutId))).toBe(true);
    expect(of("det-tool", "unflagged").some((q) => toolFlagged.has(q.rolloutId))).toBe(false);
    for (const d of ["det-tool", "det-trunc"]) expect(new Set(queue.filter((q) => q.detectorId === d).map((q) => q.rolloutId)).size).toBe(queue.filter((q) => q.detectorId === d).length);
  });

  it("interleaves the strata, so the first items already measure every detector", () => {
    const first = reviewQueue(input).slice(0, 4);
    expect(first.map((q) => `${q.label}/${q.stratum}`).sort()).toEqual(["tool_error/flagged", "tool_error/unflagged", "truncated/flagged", "truncated/unflagged"]);
  });

  it("is the same for the same seed whatever the order of the ids, and another for another seed", () => {
    const a = reviewQueue(input);
    const shuffled = { ...input, detectors: [...input.detectors].reverse().map((d) => ({ ...d, population: [...d.population].reverse(), flagged: [...d.flagged].reverse() })) };
    expect(reviewQueue(shuffled)).toEqual(a);
    expect(reviewQueue({ ...input, seed: "another" }).map((q) => q.rolloutId)).not.toEqual(a.map((q) => q.rolloutId));
  });

  it("leaves a detector's sample as it was when another detector joins the harness", () => {
    const alone = reviewQueue({ ...input, detectors: [input.detectors[0]!] });
    const together = reviewQueue(input).filter((q) => q.detectorId === "det-tool");
    expect(together).toEqual(alone);
  });

  it("draws every unflagged rollout with equal probability", () => {
    const counts = new Map<string, number>();
    const trials = 400;
    for (let t = 0; t < trials; t++) {
      for (const q of reviewQueue({ ...input, detectors: [{ detectorId: "d", label: "x", population: ids(500), flagged: ids(100) }], seed: String(t) }))
        if (q.stratum === "unflagged") counts.set(q.rolloutId, (counts.get(q.rolloutId) ?? 0) + 1);
    }
    // Each of the 400 unflagged rollouts is drawn with probability 20/400: 20 times in 400 queues on average.
    const drawn = ids(400, 100).map((id) => counts.get(id) ?? 0);
    expect(drawn.reduce((s, c) => s + c, 0)).toBe(20 * trials);
    expect(Math.max(...drawn)).toBeLessThan(45);
    expect(Math.min(...drawn)).toBeGreaterThan(4);
  });
});

describe("detectorQuality", () => {
  const outcomes = { flaggedFailed: 40, failed: 60, flaggedSucceeded: 5, succeeded: 40 };

  it("measures precision on reviewed flags and recall on the queue's unflagged sample only", () => {
    const reviews = [
      ...Array(28).fill({ flagged: true, verdict: "confirmed", weight: 1.5 }),
      ...Array(2).fill({ flagged: true, verdict: "rejected", weight: null }),
      ...Array(10).fill({ flagged: false, verdict: "rejected", weight: 5.5 }),
      { flagged: false, verdict: "missed", weight: 5.5 },
      // A missed label a person added by hand outside the queue: no probability sample, so not in recall.
      { flagged: false, verdict: "missed", weight: null },
    ] as const;
    const q = detectorQuality({ detectorId: "d", label: "tool_error", flagged: 45, unflagged: 55, reviews, outcomes });
    expect(q.reviewed).toBe(30);
    expect(q.confirmed).toBe(28);
    expect(q.precision).toBeCloseTo(28 / 30, 12);
    expect(q.precisionInterval![0]).toBeCloseTo(0.7868, 3);
    expect(q.recallReviewed).toBe(11);
    expect(q.recall!.missed).toBeCloseTo(5, 9);
    expect(q.recall!.recall).toBeCloseTo(42 / 47, 9);
    expect(q.missedOutsideSample).toBe(1);
    expect(q.informativeness.separates).toBe("failures");
    expect(qualityText(q.label, q.reviewed, q.confirmed)).toBe("tool_error · precision 0.93 [0.79, 0.98] · 30 reviewed");
  });

  it("says not reviewed when no flag was reviewed", () => {
    const q = detectorQuality({ detectorId: "d", label: "truncated", flagged: 3, unflagged: 97, reviews: [], outcomes });
    expect(q.precision).toBeNull();
    expect(q.recall).toBeNull();
    expect(q.missedOutsideSample).toBe(0);
    expect(qualityText(q.label, q.reviewed, q.confirmed)).toBe("truncated · not reviewed");
    expect([reviewVerdict(true, true), reviewVerdict(true, false), reviewVerdict(false, true), reviewVerdict(false, false)]).toEqual(["confirmed", "rejected", "missed", "rejected"]);
  });
});

describe("label quality in the gate", () => {
  const requirement = { minPrecision: 0.9, minReviews: 20 };
  const trust = new Map([
    ["tool_error", { reviewed: 30, precision: 0.6 }],
    ["truncated", { reviewed: 5, precision: 1 }],
    ["format_error", { reviewed: 25, precision: 0.96 }],
  ]);
  const validity = (label: string, passed: boolean) => ({ name: "validity_limit", passed, numbers: { label } });
  const targeted = { name: "targeted_metric", passed: true, numbers: {} };

  it("sends to a person a veto by a label below the bar or without enough reviews, naming why", () => {
    const reasons = labelQualityHolds(requirement, [validity("tool_error", false), validity("truncated", false), validity("format_error", false)], trust, "reward_mean");
    expect(reasons).toEqual([
      "tool_error is over its validity limit, but tool_error's reviewed precision 0.60 is below gate.labelQuality.minPrecision 0.9",
      "truncated is over its validity limit, but truncated has 5 reviewed labels, fewer than the 20 that gate.labelQuality.minReviews asks for",
    ]);
  });

  it("sends to a person a promotion that rests on an untrusted label's targeted metric", () => {
    expect(labelQualityHolds(requirement, [targeted], trust, "label_rate.truncated")).toHaveLength(1);
    expect(labelQualityHolds(requirement, [targeted], trust, "label_rate.format_error")).toEqual([]);
    expect(labelQualityHolds(requirement, [targeted], trust, "reward_mean")).toEqual([]);
  });

  it("leaves passing validity checks, and runs without the requirement, alone", () => {
    expect(labelQualityHolds(requirement, [validity("tool_error", true)], trust, "reward_mean")).toEqual([]);
    expect(labelQualityHolds(undefined, [validity("tool_error", false), targeted], trust, "label_rate.tool_error")).toEqual([]);
    expect(untrustedLabelReason(requirement, "never_reviewed", undefined)).toMatch(/has 0 reviewed labels/);
  });
});
