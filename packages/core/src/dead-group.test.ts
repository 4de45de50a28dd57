import { describe, expect, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { groupAdvantages } from "./advantages.ts";
import { backtest } from "./backtest.ts";
import { isDeadGroup } from "./dead-group.ts";
import { computeMetrics } from "./harness/metrics.ts";
import { defaultRecipe } from "./recipe.ts";
import { std } from "./stats.ts";

const EIGHT_TENTHS = Array.from({ length: 8 }, () => 0.1);

function group(id: string, rewards: readonly number[]): Rollout[] {
  return rewards.map((reward, sample) => ({
    uid: `${id}-${sample}`,
    split: "train",
    step: 1,
    taskId: id,
    groupId: id,
    sample,
    prompt: "",
    response: "",
    reward,
    rewardComponents: { correctness: reward },
    responseTokens: 100,
    turns: 1,
    truncated: false,
  }));
}

describe("dead groups: all rewards equal, whatever float arithmetic gives", () => {
  it("a group of 8 rewards of 0.1 is dead although its float std is not 0", () => {
    // The case: the std of eight 0.1s is ~1e-17, so `std === 0` called the group alive.
    expect(std(EIGHT_TENTHS)).toBeGreaterThan(0);
    expect(isDeadGroup(EIGHT_TENTHS)).toBe(true);
    expect(isDeadGroup([0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.2])).toBe(false);
    expect(isDeadGroup([0.1])).toBe(false);
    expect(isDeadGroup([])).toBe(false);
  });

  it("branch metrics (verdict evidence, health reports) count every such group dead", () => {
    const rollouts = [...group("a", EIGHT_TENTHS), ...group("b", EIGHT_TENTHS.map(() => 0.7)), ...group("c", EIGHT_TENTHS.map(() => 1 / 3))];
    expect(computeMetrics(rollouts, []).metrics.dead_group_ratio).toBe(1);
    const mixed = [...rollouts, ...group("d", [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.3])];
    expect(computeMetrics(mixed, []).metrics.dead_group_ratio).toBe(0.75);
  });

  it("GRPO gives a dead group advantages of exactly 0, with and without std scaling", () => {
    expect(groupAdvantages(EIGHT_TENTHS, true)).toEqual(EIGHT_TENTHS.map(() => 0));
    expect(groupAdvantages(EIGHT_TENTHS, false)).toEqual(EIGHT_TENTHS.map(() => 0));
  });

  it("the backtest counts them dead before and after, and dynamic sampling filters them", () => {
    const parent = defaultRecipe();
    const rollouts = [...group("a", EIGHT_TENTHS), ...group("b", EIGHT_TENTHS.map(() => 0.3))];
    const same = backtest({ parent, candidate: parent, rollouts, labels: [], intervention: { targetMetric: "dead_group_ratio", expectedEffect: { direction: "down" } } });
    expect(same.deadGroups).toMatchObject({ before: 2, after: 2, rescued: 0, killed: 0 });
    expect(same.metrics.before.dead_group_ratio).toBe(1);
    const candidate = structuredClone(parent);
    candidate.data.dynamicSampling.enabled = true;
    const filtered = backtest({ parent, candidate, rollouts, labels: [], intervention: { targetMetric: "dead_group_ratio", expectedEffect: { direction: "down" } } });
    expect(filtered.deadGroups.filteredOut).toEqual({ before: 0, after: 2 });
  });
});
