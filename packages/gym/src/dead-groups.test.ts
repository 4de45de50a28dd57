import { describe, expect, it } from "vitest";
import { meanOver, promotionScore, trainBranch } from "./test-support.ts";

describe("dead groups and dynamic sampling", () => {
  const plain = trainBranch("math", () => {});
  const dynamic = trainBranch("math", (r) => {
    r.data.dynamicSampling = { enabled: true, maxResampleRounds: 3 };
  });

  it("leaves a large share of zero-variance groups in a plain GRPO batch", () => {
    expect(meanOver(plain, "train/dead_group_ratio", 1, 31)).toBeGreaterThan(0.2);
    expect(plain.batches.every((b) => b.length === 16)).toBe(true);
  });

  it("replaces them with fresh groups when dynamic sampling is on, and learns more from the same steps", () => {
    expect(dynamic.metrics.every((m) => m["train/dead_group_ratio"] === 0)).toBe(true);
    expect(dynamic.batches.every((b) => b.length === 16)).toBe(true);
    // The groups it dropped were dead at about the plain rate: they were rescued, not avoided.
    expect(meanOver(dynamic, "train/sampled_dead_group_ratio", 1, 31)).toBeGreaterThan(0.15);
    expect(meanOver(dynamic, "train/filtered_groups", 1, 31)).toBeGreaterThan(3);
    expect(promotionScore(dynamic.policy)).toBeGreaterThan(promotionScore(plain.policy) + 0.03);
  });
});
