import { describe, expect, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { groupAdvantages } from "./advantages.ts";
import { backtest } from "./backtest.ts";
import type { Label } from "./harness/detector.ts";
import { defaultRecipe, type Recipe } from "./recipe.ts";
import { overlongPenalty } from "./reward-shaping.ts";

function rollout(group: string, sample: number, c: { correctness: number; format?: number; tokens?: number }): Rollout {
  return {
    uid: `${group}-${sample}`,
    split: "train",
    step: 10,
    taskId: group,
    groupId: group,
    sample,
    prompt: "",
    response: "",
    // Logged under the parent recipe: correctness weight 1, format weight 0.
    reward: c.correctness,
    rewardComponents: { correctness: c.correctness, format: c.format ?? 0 },
    responseTokens: c.tokens ?? 100,
    turns: 1,
    truncated: false,
  };
}

function groupOf(id: string, correctness: number[], format: number[] = correctness.map(() => 0), tokens?: number[]): Rollout[] {
  return correctness.map((c, i) => rollout(id, i, { correctness: c, format: format[i]!, tokens: tokens?.[i] }));
}

function label(r: Rollout, name: string, validity = false): Label {
  return { rolloutUid: r.uid, label: name, detectorId: `math.${name}`, detectorVersion: 1, validity, evidence: null };
}

const parent = defaultRecipe();
const withRecipe = (f: (r: Recipe) => void): Recipe => {
  const r = structuredClone(parent);
  f(r);
  return r;
};

describe("groupAdvantages", () => {
  it("computes GRPO advantages with and without std scaling", () => {
    expect(groupAdvantages([1, 0, 0, 0], false)).toEqual([0.75, -0.25, -0.25, -0.25]);
    const scaled = groupAdvantages([1, 0, 0, 0], true);
    expect(scaled[0]).toBeCloseTo(1.5, 5);
    expect(scaled[1]).toBeCloseTo(-0.5, 5);
    expect(groupAdvantages([1, 1, 1], true)).toEqual([0, 0, 0]);
    expect(groupAdvantages([1], true)).toEqual([0]);
  });
});

describe("overlongPenalty", () => {
  it("ramps linearly over the buffer and caps beyond the limit", () => {
    const reward = { ...parent.reward, overlong: { enabled: true, bufferTokens: 1000, penalty: 1 } };
    expect(overlongPenalty(reward, 4000, 3000)).toBe(0);
    expect(overlongPenalty(reward, 4000, 3500)).toBe(-0.5);
    expect(overlongPenalty(reward, 4000, 4000)).toBe(-1);
    expect(overlongPenalty(reward, 4000, 5000)).toBe(-1);
  });
});

describe("backtest", () => {
  it("read-only tests take away what tampering earned: the tampering rollouts' advantage falls, and only theirs", () => {
    // In each group two rollouts passed by editing the tests, one passed honestly, one failed.
    const groups = ["a", "b", "c"].map((id) => groupOf(id, [1, 1, 1, 0]));
    const rollouts = groups.flat();
    const tampered = rollouts.filter((r) => r.sample < 2);
    const labels = tampered.map((r) => label(r, "test_tampering", true));
    const intervention = { targetMetric: "label_rate.test_tampering", expectedEffect: { direction: "down" as const } };
    const hardened = backtest({ parent, candidate: withRecipe((r) => void (r.env.readOnlyTests = true)), rollouts, labels, intervention });
    expect(hardened.predicted).toMatchObject({ direction: "down", agreesWithExpectation: true });
    const t = hardened.advantageByLabel.test_tampering!;
    expect(t.after.unscaled).toBeLessThan(t.before.unscaled);
    // The honest pass (the only success: tampering is a validity label) now stands out in its group.
    const honest = hardened.advantageByLabel._success!;
    expect(honest.count).toBe(3);
    expect(honest.after.unscaled).toBeGreaterThan(honest.before.unscaled);
    expect(hardened.metrics.after.reward_mean).toBeCloseTo(0.25, 9);

    // A flag that closes nothing these labels mark changes nothing.
    const offline = backtest({ parent, candidate: withRecipe((r) => void (r.env.networkOff = true)), rollouts, labels, intervention });
    expect(offline.predicted).toMatchObject({ direction: "flat", agreesWithExpectation: false });
    expect(offline.metrics.after).toEqual(offline.metrics.before);
  });

  it("a format-weight increase rescues a dead group and introduces exact ordering violations", () => {
    const g1 = groupOf("g1", [0, 0, 0, 0], [1, 0, 1, 0]); // dead, rescued by the format bonus
    const g2 = groupOf("g2", [0, 0, 0, 0], [1, 1, 1, 1]); // dead, stays dead
    const g3 = groupOf("g3", [1, 0, 0, 0], [0, 1, 1, 0]); // two failures will outrank the success
    const g4 = groupOf("g4", [1, 1, 0, 0], [1, 0, 1, 0]); // one failure will outrank one success
    const rollouts = [...g1, ...g2, ...g3, ...g4];
    const labels = rollouts.filter((r) => r.rewardComponents.format === 0).map((r) => label(r, "format_error"));
    const candidate = withRecipe((r) => {
      r.reward.components.format!.weight = 1.5;
    });

    const report = backtest({
      parent,
      candidate,
      rollouts,
      labels,
      intervention: { targetMetric: "label_rate.format_error", expectedEffect: { direction: "down" } },
    });

    expect(report.groups).toBe(4);
    expect(report.deadGroups).toEqual({ before: 2, after: 1, rescued: 1, killed: 0, filteredOut: { before: 0, after: 0 } });
    expect(report.orderingViolations).toMatchObject({ before: 0, after: 3, introduced: 3, groupsAffected: 2 });
    expect(report.orderingViolations.exampleUids).toEqual(expect.arrayContaining(["g3-0", "g3-1", "g3-2", "g4-1", "g4-2"]));
    expect(report.wronglyCut.count).toBe(0);
    const fe = report.advantageByLabel.format_error!;
    expect(fe.count).toBe(6);
    expect(fe.after.scaled).toBeLessThan(fe.before.scaled);
    expect(report.advantageByLabel._success!.after.unscaled).toBeLessThan(report.advantageByLabel._success!.before.unscaled);
    expect(report.predicted).toMatchObject({ metric: "label_rate.format_error", direction: "down", basis: "proxy", agreesWithExpectation: true });
  });

  it("dynamic sampling filters dead groups out of the batch without rescuing any", () => {
    const rollouts = [
      ...groupOf("d1", [0, 0, 0, 0]),
      ...groupOf("d2", [1, 1, 1, 1]),
      ...groupOf("d3", [1, 1, 1, 1]),
      ...Array.from({ length: 7 }, (_, i) => groupOf(`l${i}`, [1, 0, i % 2, 0])).flat(),
    ];
    const candidate = withRecipe((r) => {
      r.data.dynamicSampling.enabled = true;
    });
    const report = backtest({
      parent,
      candidate,
      rollouts,
      labels: [],
      intervention: { targetMetric: "dead_group_ratio", expectedEffect: { direction: "down" } },
    });
    expect(report.groups).toBe(10);
    expect(report.kept).toEqual({ before: 40, after: 28 });
    expect(report.deadGroups).toEqual({ before: 3, after: 0, rescued: 0, killed: 0, filteredOut: { before: 0, after: 3 } });
    expect(report.orderingViolations).toMatchObject({ before: 0, after: 0, introduced: 0 });
    expect(report.metrics.before.dead_group_ratio).toBeCloseTo(0.3, 10);
    expect(report.metrics.after.dead_group_ratio).toBe(0);
    expect(report.predicted).toMatchObject({ direction: "down", basis: "direct", agreesWithExpectation: true });
    expect(report.predicted.size).toBeCloseTo(-0.3, 10);
  });

  it("counts successful rollouts a shorter length limit would cut", () => {
    const rollouts = [...groupOf("a", [1, 1, 0, 0], undefined, [3000, 1000, 500, 2500]), ...groupOf("b", [1, 0], undefined, [3500, 3900])];
    const candidate = withRecipe((r) => {
      r.algo.maxResponseTokens = 2048;
    });
    const report = backtest({ parent, candidate, rollouts, labels: [], intervention: { targetMetric: "truncation_rate", expectedEffect: { direction: "down" } } });
    expect(report.wronglyCut).toEqual({ count: 2, rateOfSuccesses: 2 / 3, exampleUids: ["a-0", "b-0"] });
    // Group b: its success loses its reward to the cut, so both samples score 0: the group dies.
    expect(report.deadGroups).toMatchObject({ before: 0, after: 1, killed: 1 });
    expect(report.predicted).toMatchObject({ metric: "truncation_rate", direction: "up", basis: "direct", agreesWithExpectation: false });
  });

  it("treats a validity-flagged high-reward rollout as a failure when ranking", () => {
    const rollouts = groupOf("v", [1, 1, 0]);
    const report = backtest({
      parent,
      candidate: withRecipe((r) => {
        r.algo.lr = 2e-6;
      }),
      rollouts,
      labels: [label(rollouts[0]!, "test_tampering", true)],
      intervention: { targetMetric: "pass_rate", expectedEffect: { direction: "up" } },
    });
    // The tampering rollout ties the honest success: no violation; but it counts among failures.
    expect(report.advantageByLabel._failure!.count).toBe(2);
    expect(report.orderingViolations.before).toBe(0);
    expect(report.predicted).toMatchObject({ basis: "proxy", direction: "flat" });
  });
});
