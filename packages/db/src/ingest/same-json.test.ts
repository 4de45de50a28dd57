import { describe, expect, it } from "vitest";
import { rolloutSchema } from "@evotrainer/contract";
import { sameJson } from "./same-json.ts";

describe("sameJson", () => {
  it("holds for a rollout against what validation returns of it, key order aside", () => {
    const given = { trajectory: [{ content: "a \"q\"", role: "assistant", toolCalls: [{ arguments: { cmd: "ls" }, name: "bash" }] }], extra: { n: 1, list: [1, "x", null] } };
    const validated = rolloutSchema.parse({ uid: "u", split: "train", step: 0, taskId: "t", groupId: "g", sample: 0, prompt: "p", reward: 0, responseTokens: 1, ...given });
    expect(sameJson(given.trajectory, validated.trajectory)).toBe(true);
    expect(sameJson(given.extra, validated.extra)).toBe(true);
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
  });

  it("fails where JSON would differ: a default filled in, a key dropped or added, another value, NaN", () => {
    expect(sameJson([{ name: "bash" }], [{ name: "bash", arguments: {} }])).toBe(false);
    expect(sameJson({ role: "tool", extraKey: 1 }, { role: "tool" })).toBe(false);
    expect(sameJson({ a: "x" }, { a: "y" })).toBe(false);
    expect(sameJson([1, 2], [1, 2, 3])).toBe(false);
    expect(sameJson([1], { 0: 1 })).toBe(false);
    expect(sameJson({ a: Number.NaN }, { a: Number.NaN })).toBe(false);
    expect(sameJson(new Date(0), new Date(0))).toBe(false);
  });
});
