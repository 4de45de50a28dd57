import { describe, expect, it } from "vitest";
import { mentionsFactor } from "./factor-mentions.ts";

describe("mentionsFactor", () => {
  it("finds a factor by its id, its usual names, a component's or an env flag's name", () => {
    expect(mentionsFactor("Leave algo.lr alone.", "algo.lr")).toBe(true);
    expect(mentionsFactor("The learning rate is tiny already", "algo.lr")).toBe(true);
    expect(mentionsFactor("no more Dynamic-Sampling", "data.dynamicSampling")).toBe(true);
    expect(mentionsFactor("the format weight is fine", "reward.components.format.weight")).toBe(true);
    expect(mentionsFactor("a test_tampering penalty hides the real problem", "reward.components.test_tampering.weight")).toBe(true);
    expect(mentionsFactor("keep readOnlyTests off for this benchmark", "env.readOnlyTests")).toBe(true);
  });

  it("does not find one inside other words or other factors' names", () => {
    expect(mentionsFactor("the flr metric", "algo.lr")).toBe(false);
    expect(mentionsFactor("the tampering rate is too high", "algo.clip.high")).toBe(false);
    expect(mentionsFactor("the format looks fine", "reward.components.format.weight")).toBe(false);
    expect(mentionsFactor("sampling temperature is locked", "data.dynamicSampling")).toBe(false);
  });
});
