import { describe, expect, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { pairedBootstrap, taskScores } from "./bootstrap.ts";
import { gatePolicySchema } from "./harness/harness.ts";
import type { Finding } from "./harness/health-report.ts";
import { computeMetrics } from "./harness/metrics.ts";
import { seededRandom } from "./random.ts";
import { judgeRound } from "./gate/control-test.ts";
import { addControlRound, NO_NOISE_FLOOR } from "./gate/noise-floor.ts";
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
// Round 1 of a 4-round run at alpha 0.05: a quarter of the run's alpha.
const ROUND = { alpha: 0.0125, minEffect: policy.minEffect, minNoiseDf: policy.minNoiseDf, samplesPerTask: SAMPLES };

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
  it("judges against the control: extra training alone passes against the parent but is not promoted", () => {
    const rand = seededRandom(11);
    const difficulty = Array.from({ length: TASKS }, () => 0.2 + 0.6 * rand());
    const parent = side(promotionRollouts(difficulty, 0, rand, "p"), 0.1);
    // The control and the candidate both trained on: both gained 10 points over the parent.
    const control = side(promotionRollouts(difficulty, 0.1, rand, "k"), 0.1);
    const candidate = side(promotionRollouts(difficulty, 0.1, rand, "c"), 0.05);
    const floor = addControlRound(NO_NOISE_FLOOR, [0.6, 0.62, 0.61]);
    const vsControl = judgeRound(new Map([["c", candidate.taskScores]]), [control.taskScores], floor, ROUND).get("c")!;
    const v = verdict({ candidate, parent, intervention, policy, seed: 3, vsControl });
    const byName = Object.fromEntries(v.checks.map((c) => [c.name, c]));
    expect(byName.main_score_vs_parent).toMatchObject({ passed: true, blocking: false });
    expect(byName.main_score_vs_control!.passed).toBe(false);
    expect(byName.main_score_vs_control!.numbers).toMatchObject({ holmRank: 1, family: 1, noiseDf: 2, controls: 1, minEffect: 0.01, roundAlpha: 0.0125, spent: 0.0125 });
    expect(byName.main_score_vs_control!.detail).toMatch(/against the min effect 0\.0100; seed noise sd 0\.0100 on 2 df/);
    expect(v.promote).toBe(false);
  });

  it("judges the targeted metric against the control arm: extra training alone moving it does not count", () => {
    const rand = seededRandom(17);
    const difficulty = Array.from({ length: TASKS }, () => 0.2 + 0.6 * rand());
    const parent = side(promotionRollouts(difficulty, 0, rand, "p"), 0.1);
    // Training on lowered the format error rate for the control as much as for the candidate.
    const control = side(promotionRollouts(difficulty, 0.3, rand, "k"), 0.05);
    const candidate = side(promotionRollouts(difficulty, 0.3, rand, "c"), 0.05);
    const floor = addControlRound(NO_NOISE_FLOOR, [0.6, 0.62, 0.61]);
    const vsControl = judgeRound(new Map([["c", candidate.taskScores]]), [control.taskScores], floor, ROUND).get("c")!;
    const vsParentOnly = verdict({ candidate, parent, intervention, policy, seed: 3, vsControl: null });
    expect(vsParentOnly.checks.find((c) => c.name === "targeted_metric")).toMatchObject({ passed: true, numbers: { baseline: "parent" } });
    const v = verdict({ candidate, parent, intervention, policy, seed: 3, vsControl, controlMetrics: [control.report.metrics] });
    const targeted = v.checks.find((c) => c.name === "targeted_metric")!;
    expect(targeted).toMatchObject({ passed: false, numbers: { before: 0.05, after: 0.05, delta: 0, baseline: "control" } });
    expect(targeted.detail).toMatch(/\(the control \(mean of 1\)\)/);
  });

  it("does not blame a candidate for a CRIT finding its round's controls show too", () => {
    const rand = seededRandom(13);
    const difficulty = Array.from({ length: TASKS }, () => 0.2 + 0.6 * rand());
    const parent = side(promotionRollouts(difficulty, 0, rand, "p"), 0.1);
    const candidate = side(promotionRollouts(difficulty, 0.3, rand, "c"), 0.05, ["dead-groups-crit"]);
    const alone = verdict({ candidate, parent, intervention, policy, seed: 3, vsControl: null });
    expect(alone.checks.find((c) => c.name === "no_new_crit")).toMatchObject({ passed: false, numbers: { findings: "dead-groups-crit" } });
    const withControls = verdict({ candidate, parent, intervention, policy, seed: 3, vsControl: null, controlCrit: ["dead-groups-crit"] });
    expect(withControls.checks.find((c) => c.name === "no_new_crit")).toMatchObject({ passed: true, detail: "no CRIT finding the parent or the round's controls did not have" });
    // A CRIT the controls do not have is still the candidate's.
    const other = verdict({ candidate, parent, intervention, policy, seed: 3, vsControl: null, controlCrit: ["entropy-collapse"] });
    expect(other.checks.find((c) => c.name === "no_new_crit")!.passed).toBe(false);
  });

  it("without a control, says plainly that it cannot separate the intervention from extra training", () => {
    const rand = seededRandom(12);
    const difficulty = Array.from({ length: TASKS }, () => 0.2 + 0.6 * rand());
    const parent = side(promotionRollouts(difficulty, 0, rand, "p"), 0.1);
    const candidate = side(promotionRollouts(difficulty, 0.1, rand, "c"), 0.05);
    const v = verdict({ candidate, parent, intervention, policy, seed: 3, vsControl: null });
    const noControl = v.checks.find((c) => c.name === "no_control_arm")!;
    expect(noControl).toMatchObject({ passed: false, blocking: false });
    expect(noControl.detail).toMatch(/cannot separate the intervention from the extra training/);
    expect(v.checks.find((c) => c.name === "main_score_vs_parent")!.blocking).toBeUndefined();
    expect(v.promote).toBe(true);
  });

  it("sends a promotable candidate to a person when a validity label the gate does not limit is on its round", () => {
    const rand = seededRandom(12);
    const difficulty = Array.from({ length: TASKS }, () => 0.2 + 0.6 * rand());
    const parent = side(promotionRollouts(difficulty, 0, rand, "p"), 0.1);
    const candidate = side(promotionRollouts(difficulty, 0.1, rand, "c"), 0.05);
    const input = { candidate, parent, intervention, policy, seed: 3, vsControl: null, validityLabels: ["test_tampering", "hardcoded_output"] };
    expect(verdict(input).promote).toBe(true);
    parent.report.metrics.label_rate.hardcoded_output = 0.2;
    const v = verdict(input);
    expect(v.promote).toBe(false);
    expect(v.needsPerson).toEqual([expect.stringMatching(/^validity label hardcoded_output is on this round's rollouts \(parent\) and gate.validityLimits does not limit it/)]);
    // A limited label is the validity check's to judge, not a person's.
    parent.report.metrics.label_rate.test_tampering = 0.2;
    expect(verdict(input).needsPerson).toHaveLength(1);
  });

  it("lists every check with its numbers and fails on a regression vs best, a wrong-way metric, a new CRIT or a validity breach", () => {
    const rand = seededRandom(5);
    const difficulty = Array.from({ length: TASKS }, () => 0.2 + 0.6 * rand());
    const parent = side(promotionRollouts(difficulty, 0, rand, "p"), 0.1);
    const best = side(promotionRollouts(difficulty, 0.2, rand, "b"), 0.1);
    const cand = side(promotionRollouts(difficulty, 0.1, rand, "c"), 0.2, ["dead-groups-crit"]);
    cand.report.metrics.label_rate.test_tampering = 0.02;
    const v = verdict({ candidate: cand, parent, best, intervention, policy, seed: 1, vsControl: null });
    expect(v.promote).toBe(false);
    const byName = Object.fromEntries(v.checks.map((c) => [c.name, c]));
    expect(v.checks.map((c) => c.name)).toEqual(["no_control_arm", "main_score_vs_parent", "main_score_vs_best", "targeted_metric", "no_new_crit", "validity_limit"]);
    expect(byName.main_score_vs_parent!.passed).toBe(true);
    expect(byName.main_score_vs_best!.passed).toBe(false);
    expect(byName.targeted_metric).toMatchObject({ passed: false, numbers: { before: 0.1, after: 0.2, expected: "down" } });
    expect(byName.no_new_crit).toMatchObject({ passed: false, numbers: { findings: "dead-groups-crit" } });
    expect(byName.validity_limit).toMatchObject({ passed: false, numbers: { label: "test_tampering", rate: 0.02, limit: 0.01 } });
  });
});

describe("a round's verdicts do not depend on the order its siblings finish in", () => {
  it("judges three candidates over three controls identically in every order of candidates and of controls", () => {
    const rand = seededRandom(23);
    const difficulty = Array.from({ length: TASKS }, () => 0.2 + 0.6 * rand());
    const parent = side(promotionRollouts(difficulty, 0, rand, "p"), 0.1);
    // Scores in sevenths and label rates in thirtieths, whose float sums depend on the order they are added in.
    const sevenths = (g: GateSide): GateSide => ({ ...g, taskScores: new Map([...g.taskScores].map(([t, v]) => [t, Math.round(v * 7) / 7])) });
    const controls = [0.07, 0.1, 0.13].map((lift, i) => sevenths(side(promotionRollouts(difficulty, lift, rand, `k${i}`), 0.1 + i / 30)));
    const candidates = new Map([0.1, 0.2, 0.3].map((lift, i) => [`c${i}` as string, sevenths(side(promotionRollouts(difficulty, lift, rand, `c${i}`), 0.05))] as const));
    const floor = addControlRound(NO_NOISE_FLOOR, [0.6, 0.61, 0.635]);
    const judged = (candidateOrder: string[], controlOrder: number[]) => {
      const round = judgeRound(new Map(candidateOrder.map((id) => [id, candidates.get(id)!.taskScores])), controlOrder.map((i) => controls[i]!.taskScores), floor, ROUND);
      const controlMetrics = controlOrder.map((i) => controls[i]!.report.metrics);
      return Object.fromEntries([...candidates.keys()].map((id) => [id, verdict({ candidate: candidates.get(id)!, parent, intervention, policy, seed: 3, vsControl: round.get(id)!, controlMetrics })]));
    };
    const first = judged(["c0", "c1", "c2"], [0, 1, 2]);
    expect(Object.values(first).map((v) => v.promote)).toContain(true);
    for (const candidateOrder of [["c2", "c1", "c0"], ["c1", "c2", "c0"]]) {
      for (const controlOrder of [[2, 1, 0], [1, 0, 2], [0, 2, 1]]) expect(judged(candidateOrder, controlOrder)).toEqual(first);
    }
  });
});
