import { describe, expect, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { pairedBootstrap, taskScores } from "./bootstrap.ts";
import { gatePolicySchema } from "./harness/harness.ts";
import type { Finding } from "./harness/health-report.ts";
import { computeMetrics } from "./harness/metrics.ts";
import { seededRandom } from "./random.ts";
import { verdict, type GateSide } from "./verdict.ts";

const TASKS = 100;
const SAMPLES = 32;

/** Promotion-split rollouts: per task a difficulty p, SAMPLES Bernoulli(p + lift) outcomes. */
function promotionRollouts(difficulty: number[], lift: number, rand: () => number, prefix: string): Rollout[] {
  return difficulty.flatMap((p, t) =>
    Array.from({ length: SAMPLES }, (_, s) => ({
      uid: `${prefix}-${t}-${s}`,
      split: "promotion" as const,
      step: 100,
      taskId: `task-${t}`,
      groupId: `task-${t}`,
      sample: s,
      prompt: "",
      response: "",
      reward: rand() < Math.min(1, p + lift) ? 1 : 0,
      rewardComponents: {},
      responseTokens: 100,
      turns: 1,
      truncated: false,
    })),
  );
}

function side(rollouts: Rollout[], formatErrorRate: number, crit: string[] = []): GateSide {
  const { metrics } = computeMetrics([], []);
  metrics.label_rate.format_error = formatErrorRate;
  const layers: Record<"score" | "signal" | "behaviour", Finding[]> = { score: [], signal: [], behaviour: [] };
  for (const c of crit) layers.signal.push({ layer: "signal", level: "CRIT", source: c, title: c, evidence: { metrics: {}, counts: {}, exampleUids: [] } });
  return { taskScores: taskScores(rollouts), report: { metrics, layers } };
}

const policy = gatePolicySchema.parse({ resamples: 1000, validityLimits: { test_tampering: 0.01 } });
const intervention = { targetMetric: "label_rate.format_error", expectedEffect: { direction: "down" as const } };

function trial(seed: number, lift: number) {
  const rand = seededRandom(seed);
  const difficulty = Array.from({ length: TASKS }, () => 0.2 + 0.6 * rand());
  const parent = side(promotionRollouts(difficulty, 0, rand, "p"), 0.1);
  // The targeted metric moves as predicted in every trial, so only the score decides promotion.
  const candidate = side(promotionRollouts(difficulty, lift, rand, "c"), 0.05);
  return verdict({ candidate, parent, intervention, policy, seed });
}

describe("pairedBootstrap", () => {
  it("is reproducible from its seed and pairs only shared tasks", () => {
    const a = new Map([["t1", 1], ["t2", 0.5], ["t3", 0.75], ["only-a", 1]]);
    const b = new Map([["t1", 0.5], ["t2", 0.5], ["t3", 0.25]]);
    const r1 = pairedBootstrap(a, b, { seed: 7, resamples: 500 });
    expect(r1).toEqual(pairedBootstrap(a, b, { seed: 7, resamples: 500 }));
    expect(r1.tasks).toBe(3);
    expect(r1.delta).toBeCloseTo(1 / 3, 10);
    expect(r1.ci[0]).toBeGreaterThanOrEqual(0);
    expect(r1.ci[1]).toBeLessThanOrEqual(0.5 + 1e-12);
  });

  it("averages samples per task on the promotion split only, zeroing validity-flagged rollouts", () => {
    const base = { step: 0, groupId: "g", prompt: "", response: "", rewardComponents: {}, responseTokens: 1, turns: 1, truncated: false, sample: 0 };
    const scores = taskScores([
      { ...base, uid: "a", split: "promotion", taskId: "t", reward: 1 },
      { ...base, uid: "b", split: "promotion", taskId: "t", reward: 1 },
      { ...base, uid: "c", split: "promotion", taskId: "t", reward: 0 },
      { ...base, uid: "d", split: "train", taskId: "t", reward: 1 },
    ], new Set(["b"]));
    expect(scores).toEqual(new Map([["t", 1 / 3]]));
  });
});

describe("verdict", () => {
  it("does not promote a null intervention in at least 95 of 100 seeded trials", () => {
    const promoted = Array.from({ length: 100 }, (_, i) => trial(1000 + i, 0).promote).filter(Boolean).length;
    console.log(`null intervention promoted in ${promoted}/100 trials`);
    expect(promoted).toBeLessThanOrEqual(5);
  });

  it("promotes a real +5-point improvement on 100 tasks", () => {
    const v = trial(42, 0.05);
    expect(v.promote).toBe(true);
    expect(v.vsParent.tasks).toBe(100);
    expect(v.vsParent.ci[0]).toBeGreaterThan(0);
    const power = Array.from({ length: 20 }, (_, i) => trial(2000 + i, 0.05).promote).filter(Boolean).length;
    console.log(`+5 points: Δ ${v.vsParent.delta.toFixed(4)}, CI [${v.vsParent.ci.map((x) => x.toFixed(4)).join(", ")}]; promoted in ${power}/20 further trials`);
    expect(power).toBeGreaterThanOrEqual(18);
  });

  it("lists every check with its numbers and fails on a regression vs best, a wrong-way metric, a new CRIT or a validity breach", () => {
    const rand = seededRandom(5);
    const difficulty = Array.from({ length: TASKS }, () => 0.2 + 0.6 * rand());
    const parent = side(promotionRollouts(difficulty, 0, rand, "p"), 0.1);
    const best = side(promotionRollouts(difficulty, 0.2, rand, "b"), 0.1);
    const cand = side(promotionRollouts(difficulty, 0.1, rand, "c"), 0.2, ["dead-groups-crit"]);
    cand.report.metrics.label_rate.test_tampering = 0.02;
    const v = verdict({ candidate: cand, parent, best, intervention, policy, seed: 1 });
    expect(v.promote).toBe(false);
    const byName = Object.fromEntries(v.checks.map((c) => [c.name, c]));
    expect(v.checks.map((c) => c.name)).toEqual(["main_score_vs_parent", "main_score_vs_best", "targeted_metric", "no_new_crit", "validity_limit"]);
    expect(byName.main_score_vs_parent!.passed).toBe(true);
    expect(byName.main_score_vs_best!.passed).toBe(false);
    expect(byName.targeted_metric).toMatchObject({ passed: false, numbers: { before: 0.1, after: 0.2, expected: "down" } });
    expect(byName.no_new_crit).toMatchObject({ passed: false, numbers: { findings: "dead-groups-crit" } });
    expect(byName.validity_limit).toMatchObject({ passed: false, numbers: { label: "test_tampering", rate: 0.02, limit: 0.01 } });
  });
});
