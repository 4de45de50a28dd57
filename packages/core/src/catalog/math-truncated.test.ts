import { describe, expect, it } from "vitest";
import { rolloutSchema } from "@evotrainer/contract";
import { compileHarness } from "../harness/harness.ts";
import { MATH_DETECTORS } from "./math.ts";

function truncatedLabels(rollouts: Record<string, unknown>[], maxResponseTokens: number) {
  const c = compileHarness({ version: 1, detectors: MATH_DETECTORS.filter((d) => d.label === "truncated"), healthRules: [] });
  if (!c.ok) throw new Error(JSON.stringify(c.rejections));
  const parsed = rollouts.map((r, i) => rolloutSchema.parse({ uid: `r${i}`, split: "train", step: 0, taskId: "t", groupId: "g", sample: i, prompt: "", reward: 0, ...r }));
  return c.harness.label(parsed, "math", { maxResponseTokens }).labels;
}

describe("math truncated: which source decided", () => {
  it("names the trainer flag, the finish reason or the token-limit inference in its evidence", () => {
    const labels = truncatedLabels(
      [
        { response: "Step 1:", truncated: true, responseTokens: 10 },
        { response: "Let me compute 3 + 4 =", finishReason: "length", responseTokens: 10 },
        { response: "First, 16 - 3 - 4 = 9 eggs, and then she sells each for", responseTokens: 512 },
        // No finish reason and every token used, but the text is done: a tool-using model's count.
        { response: "She sells 9 eggs for $2 each.\nSo the answer is \\boxed{18}", responseTokens: 512 },
        { response: "She sells 9 eggs for $2 each, so she makes $18.", responseTokens: 600 },
      ],
      512,
    );
    expect(labels.map((l) => [l.rolloutUid, (l.evidence as { source: string }).source])).toEqual([
      ["r0", "truncated flag"],
      ["r1", "finish_reason"],
      ["r2", "token limit"],
    ]);
  });
});
