import { describe, expect, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { backtest } from "./backtest.ts";
import { taskScores } from "./bootstrap.ts";
import { computeMetrics, isFailure, isSuccess } from "./harness/metrics.ts";
import { defaultRecipe } from "./recipe.ts";
import { unexplainedFailures } from "./unexplained/unexplained-failures.ts";

const rollout = (uid: string, groupId: string, reward: number | null, split: Rollout["split"] = "train"): Rollout => ({
  uid, split, step: 0, taskId: groupId, groupId, sample: Number(uid.at(-1)), prompt: "", response: "", reward,
  rewardComponents: reward === null ? {} : { correctness: reward }, responseTokens: 10, turns: 1, truncated: false,
});

// Two scored groups (one alive, one dead) and a group whose results were never recorded.
const rollouts = [
  rollout("a0", "a", 1), rollout("a1", "a", 0),
  rollout("b0", "b", 0), rollout("b1", "b", 0),
  rollout("c0", "c", null), rollout("c1", "c", null),
];

describe("a rollout without a known result (reward null)", () => {
  it("is neither a success nor a failure, unless a validity label makes it one", () => {
    const unknown = rollouts[4]!;
    expect(isSuccess(unknown, new Set(), 0.5)).toBe(false);
    expect(isFailure(unknown, new Set(), 0.5)).toBe(false);
    expect(isFailure(unknown, new Set([unknown.uid]), 0.5)).toBe(true);
  });

  it("is left out of reward figures and dead groups, and kept in the rest", () => {
    const { metrics } = computeMetrics(rollouts, []);
    expect(metrics).toMatchObject({ rollouts: 6, groups: 2, reward_mean: 0.25, pass_rate: 0.25, dead_group_ratio: 0.5 });
  });

  it("is left out of the unexplained failures, the backtest and the gate's task scores", () => {
    expect(unexplainedFailures(rollouts, [], { domain: "math", successThreshold: 0.5 }).failures).toBe(3);
    const report = backtest({ parent: defaultRecipe(), candidate: defaultRecipe(), rollouts, labels: [], intervention: { targetMetric: "dead_group_ratio", expectedEffect: { direction: "down" } } });
    expect(report).toMatchObject({ rollouts: 4, groups: 2 });
    const promotion = [rollout("p0", "p", 1, "promotion"), rollout("q0", "q", null, "promotion")];
    expect([...taskScores(promotion)]).toEqual([["p", 1]]);
  });
});
