import { describe, expect, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { mayHoldUnstorable, storableRollout } from "./sanitize-text.ts";

const rollout = (extra: Partial<Rollout>): Rollout => ({
  uid: "u1", split: "train", step: 1, taskId: "t", groupId: "g", sample: 0, prompt: "p", response: "r",
  reward: 0, rewardComponents: {}, responseTokens: 1, turns: 1, truncated: false, ...extra,
});

describe("storableRollout", () => {
  it("escapes NUL and replaces unpaired surrogates anywhere in the rollout, and flags what it changed", () => {
    const input = rollout({ response: "a\u0000b", trajectory: [{ role: "tool", content: "x\ud800y", toolName: "bash" }], groundTruth: { "k\u0000": "\udc00" } });
    const stored = storableRollout(input, mayHoldUnstorable(JSON.stringify(input)), false);
    expect(stored.response).toBe("a\\u0000b");
    expect(stored.trajectory?.[0]?.content).toBe("x\ufffdy");
    expect(stored.groundTruth).toEqual({ "k\\u0000": "\ufffd" });
    expect(stored.extra).toEqual({ sanitized: ["lone_surrogate", "nul"] });
  });

  it("keeps a well-formed pair and an ordinary rollout as they are", () => {
    const emoji = rollout({ response: "ok \ud83d\ude00", extra: { kept: 1 } });
    expect(storableRollout(emoji, mayHoldUnstorable(JSON.stringify(emoji)), false)).toBe(emoji);
  });

  it("flags bytes that were not UTF-8 in the file", () => {
    const input = rollout({ response: "caf\ufffd" });
    expect(storableRollout(input, mayHoldUnstorable(JSON.stringify(input)), true).extra).toEqual({ sanitized: ["invalid_utf8"] });
  });

  it("is told to look by every JSON text that decodes to something it changes, and not by a terminal's colour escapes", () => {
    // Code units around the ones Postgres refuses, mixed at random into strings (seeded, so a failure repeats).
    const units = [0x0, 0x1, 0x1b, 0x22, 0x5c, 0x41, 0xe9, 0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xe000, 0xfffd];
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0);
    let changes = 0;
    for (let i = 0; i < 5_000; i++) {
      const text = String.fromCharCode(...Array.from({ length: 1 + (next() % 6) }, () => units[next() % units.length]!));
      const input = rollout({ response: text });
      const changed = storableRollout(input, true, false) !== input;
      if (!changed) continue;
      changes += 1;
      expect(mayHoldUnstorable(JSON.stringify(input)), JSON.stringify(text)).toBe(true);
    }
    expect(changes).toBeGreaterThan(1_000);
    // Escapes as other writers spell them (upper case), and as JSON.stringify does.
    expect(mayHoldUnstorable(String.raw`{"a":"x\uD83D"}`)).toBe(true);
    expect(mayHoldUnstorable(String.raw`{"a":"x\u0000"}`)).toBe(true);
    expect(mayHoldUnstorable(JSON.stringify({ a: "\u001b[31mred\u001b[0m \ud83d\ude00" }))).toBe(false);
  });
});
