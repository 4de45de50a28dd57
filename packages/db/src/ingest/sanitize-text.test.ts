import { describe, expect, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { storableRollout } from "./sanitize-text.ts";

const rollout = (extra: Partial<Rollout>): Rollout => ({
  uid: "u1", split: "train", step: 1, taskId: "t", groupId: "g", sample: 0, prompt: "p", response: "r",
  reward: 0, rewardComponents: {}, responseTokens: 1, turns: 1, truncated: false, ...extra,
});

describe("storableRollout", () => {
  it("escapes NUL and replaces unpaired surrogates anywhere in the rollout, and flags what it changed", () => {
    const input = rollout({ response: "a\u0000b", trajectory: [{ role: "tool", content: "x\ud800y", toolName: "bash" }], groundTruth: { "k\u0000": "\udc00" } });
    const stored = storableRollout(input, JSON.stringify(input).includes("\\u"), false);
    expect(stored.response).toBe("a\\u0000b");
    expect(stored.trajectory?.[0]?.content).toBe("x\ufffdy");
    expect(stored.groundTruth).toEqual({ "k\\u0000": "\ufffd" });
    expect(stored.extra).toEqual({ sanitized: ["lone_surrogate", "nul"] });
  });

  it("keeps a well-formed pair and an ordinary rollout as they are", () => {
    const emoji = rollout({ response: "ok \ud83d\ude00", extra: { kept: 1 } });
    expect(storableRollout(emoji, JSON.stringify(emoji).includes("\\u"), false)).toBe(emoji);
  });

  it("flags bytes that were not UTF-8 in the file", () => {
    const input = rollout({ response: "caf\ufffd" });
    expect(storableRollout(input, JSON.stringify(input).includes("\\u"), true).extra).toEqual({ sanitized: ["invalid_utf8"] });
  });
});
