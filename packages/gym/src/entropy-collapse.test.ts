import { describe, expect, it } from "vitest";
import { meanOver, promotionScore, trainBranch } from "./test-support.ts";

describe("entropy collapse at a high learning rate", () => {
  const usual = trainBranch("math", () => {});
  const high = trainBranch("math", (r) => {
    r.algo.lr = 1e-5;
  });
  const initial = usual.metrics[0]!["actor/entropy"]!;

  it("collapses the policy's entropy within a branch, which the usual lr does not", () => {
    expect(high.metrics[0]!["actor/entropy"]).toBe(initial);
    expect(high.metrics.at(-1)!["actor/entropy"]!).toBeLessThan(0.25 * initial);
    expect(usual.metrics.at(-1)!["actor/entropy"]!).toBeGreaterThan(0.6 * initial);
    expect(Math.max(...high.metrics.map((m) => m["actor/pg_clipfrac"]!))).toBeGreaterThan(0.05);
    expect(Math.max(...usual.metrics.map((m) => m["actor/pg_clipfrac"]!))).toBe(0);
  });

  it("stalls learning: a collapsed policy's groups go all-equal and the locked score falls behind", () => {
    expect(meanOver(high, "train/dead_group_ratio", 21, 31)).toBeGreaterThan(meanOver(usual, "train/dead_group_ratio", 21, 31) + 0.15);
    expect(promotionScore(high.policy)).toBeLessThan(promotionScore(usual.policy));
  });

  it("is held off by an entropy bonus", () => {
    const bonus = trainBranch("math", (r) => {
      r.algo.lr = 1e-5;
      r.algo.entropyCoef = 0.05;
    });
    expect(meanOver(bonus, "actor/entropy", 21, 31)).toBeGreaterThan(1.5 * meanOver(high, "actor/entropy", 21, 31));
  });
});
