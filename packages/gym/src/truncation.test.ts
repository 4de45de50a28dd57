import { describe, expect, it } from "vitest";
import { meanOver, trainBranch } from "./test-support.ts";

describe("truncation at a tight length limit", () => {
  const tight = trainBranch("math", (r) => {
    r.algo.maxResponseTokens = 224;
  });

  it("persists through training: long careful solutions keep hitting the limit", () => {
    expect(meanOver(tight, "train/truncation_rate", 1, 11)).toBeGreaterThan(0.4);
    expect(meanOver(tight, "train/truncation_rate", 21, 31)).toBeGreaterThan(0.3);
    const cut = tight.batches.at(-1)!.flat().filter((s) => s.episode.truncated);
    expect(cut.every((s) => s.episode.finishReason === "length" && s.episode.responseTokens === 224)).toBe(true);
    expect(cut.every((s) => s.episode.components["correctness"] === 0)).toBe(true);
  });

  it("is fixed by a larger token budget", () => {
    const roomy = trainBranch("math", (r) => {
      r.algo.maxResponseTokens = 1024;
    });
    expect(meanOver(roomy, "train/truncation_rate", 1, 31)).toBeLessThan(0.08);
    expect(meanOver(roomy, "train/pass_rate", 21, 31)).toBeGreaterThan(meanOver(tight, "train/pass_rate", 21, 31) + 0.05);
  });

  it("is trained away by overlong reward shaping", () => {
    const shaped = trainBranch("math", (r) => {
      r.algo.maxResponseTokens = 224;
      r.reward.overlong = { enabled: true, bufferTokens: 64, penalty: 1 };
    });
    expect(meanOver(shaped, "train/truncation_rate", 1, 6)).toBeGreaterThan(0.4);
    expect(meanOver(shaped, "train/truncation_rate", 21, 31)).toBeLessThan(0.05);
  });
});
