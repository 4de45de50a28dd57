import type { Rollout } from "@evotrainer/contract";
import { describe, expect, it } from "vitest";
import type { Intervention } from "../intervention.ts";
import { defaultRecipe, recipeHash } from "../recipe.ts";
import { FACTOR_PATTERNS } from "../factors.ts";
import { planRound } from "./plan-round.ts";

const locked = {
  promotion: { dataset: "gym:math/promotion", samplesPerTask: 4, temperature: 0.6, maxResponseTokens: 1024, grader: "exact" },
  sealed: { dataset: "gym:math/sealed", samplesPerTask: 4, temperature: 0.6, maxResponseTokens: 1024, grader: "exact" },
  lockedPaths: [],
};

// 6 groups of 4: groups 0-3 all fail (dead), groups 4-5 mixed.
const rollouts: Rollout[] = Array.from({ length: 24 }, (_, i) => {
  const group = Math.floor(i / 4);
  const reward = group >= 4 && i % 2 === 0 ? 1 : 0;
  return {
    uid: `1-t${group}-${i % 4}`,
    split: "train",
    step: 1,
    taskId: `t${group}`,
    groupId: `t${group}@1`,
    sample: i % 4,
    prompt: "p",
    response: "r",
    reward,
    rewardComponents: { correctness: reward, format: 1 },
    responseTokens: 100,
    turns: 1,
    truncated: false,
  };
});

const proposal = (factor: string, patch: Intervention["patch"], targetMetric = "dead_group_ratio", direction: "up" | "down" = "down"): Intervention => ({
  hypothesis: `if ${factor} changes then ${targetMetric} moves because of it`,
  targetMetric,
  factor,
  patch,
  expectedEffect: { direction },
  falsification: `${targetMetric} does not move`,
  provenance: { kind: "rule", ref: "test" },
});

const dynamicSampling = proposal("data.dynamicSampling", [{ op: "replace", path: "/data/dynamicSampling/enabled", value: true }]);

describe("planRound", () => {
  const planned = planRound({
    parentRecipe: defaultRecipe(),
    locked,
    proposals: [
      proposal("algo.lr", [{ op: "replace", path: "/algo/lr", value: 2e-6 }], "reward_mean", "up"),
      dynamicSampling,
      proposal("algo.lr", [
        { op: "replace", path: "/algo/lr", value: 3e-6 },
        { op: "replace", path: "/algo/temperature", value: 0.7 },
      ]),
      proposal("eval", [{ op: "add", path: "/eval", value: { temperature: 0 } }]),
      dynamicSampling,
    ],
    parentRollouts: rollouts,
    parentLabels: [],
    triedRecipeHashes: new Set(),
    keep: 1,
  });

  it("rejects two-factor patches, touches of the locked evaluation and repeated recipes, naming why", () => {
    expect(planned.map((p) => (p.status === "rejected" ? p.reason : p.status))).toEqual([
      "backtested",
      "backtested",
      "multiple_factors",
      "touches_locked_evaluation",
      "already_tried",
    ]);
  });

  it("backtests each accepted proposal on the parent's rollouts and keeps the best B", () => {
    const ds = planned[1]!;
    if (ds.status !== "backtested") throw new Error("expected a backtest");
    expect(ds.backtest.deadGroups.before).toBe(4);
    expect(ds.backtest.predicted.direction).toBe("down");
    expect(ds.backtest.predicted.agreesWithExpectation).toBe(true);
    expect(ds.rank).toBe(1);
    expect(ds.kept).toBe(true);
    expect(ds.recipe.data.dynamicSampling.enabled).toBe(true);
    expect(ds.recipeHash).toBe(recipeHash(ds.recipe));
    const lr = planned[0]!;
    expect(lr.status === "backtested" && lr.kept).toBe(false);
  });

  it("refuses a factor the run's trainer cannot run, whatever the proposer returned, so it never reaches dispatch", () => {
    const onTrl = planRound({
      parentRecipe: defaultRecipe(),
      locked,
      proposals: [dynamicSampling, proposal("algo.lr", [{ op: "replace", path: "/algo/lr", value: 2e-6 }], "reward_mean", "up")],
      parentRollouts: rollouts,
      parentLabels: [],
      triedRecipeHashes: new Set(),
      keep: 2,
      factors: FACTOR_PATTERNS.filter((f) => f.pattern.join(".") !== "data.dynamicSampling"),
    });
    expect(onTrl.map((p) => (p.status === "rejected" ? `${p.reason}: ${p.message}` : p.status))).toEqual([
      "unsupported_factor: the run's trainer cannot run factor data.dynamicSampling",
      "backtested",
    ]);
  });

  it("refuses a proposal whose recipe the run's trainer does not render, with the trainer's reason", () => {
    const rloo = proposal("algo.estimator", [{ op: "replace", path: "/algo/estimator", value: "rloo" }], "reward_mean", "up");
    const onGrpoOnly = planRound({
      parentRecipe: defaultRecipe(),
      locked,
      proposals: [rloo, proposal("algo.lr", [{ op: "replace", path: "/algo/lr", value: 2e-6 }], "reward_mean", "up")],
      parentRollouts: rollouts,
      parentLabels: [],
      triedRecipeHashes: new Set(),
      keep: 2,
      renders: (r) => (r.algo.estimator === "grpo" ? { ok: true } : { ok: false, factor: "algo.estimator", message: `trl cannot run recipe factor algo.estimator: no ${r.algo.estimator}` }),
    });
    expect(onGrpoOnly.map((p) => (p.status === "rejected" ? `${p.reason}: ${p.message}` : p.status))).toEqual([
      "unsupported_value: trl cannot run recipe factor algo.estimator: no rloo",
      "backtested",
    ]);
  });

  it("refuses a recipe that was already trained from this parent", () => {
    const first = planned[1]!;
    if (first.status !== "backtested") throw new Error("expected a backtest");
    const again = planRound({
      parentRecipe: defaultRecipe(),
      locked,
      proposals: [dynamicSampling],
      parentRollouts: rollouts,
      parentLabels: [],
      triedRecipeHashes: new Set([first.recipeHash]),
      keep: 1,
    });
    expect(again[0]).toMatchObject({ status: "rejected", reason: "already_tried" });
  });
});
