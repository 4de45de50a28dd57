import { describe, expect, it } from "vitest";
import { shortHash, shortHashOfPieces } from "@evotrainer/adapters";
import type { Rollout } from "@evotrainer/contract";
import { rolloutJsonPieces, ropeOf, trajectoryJsonPieces } from "./rollout-json.ts";

const rollout: Rollout = {
  uid: "t@1", split: "train", step: 0, taskId: "t", groupId: "t", sample: 0, reward: 1, rewardComponents: {}, responseTokens: 3, turns: 2, truncated: false,
  prompt: "fix the \"bug\" \u0000 here",
  response: undefined,
  trajectory: [
    { role: "user", content: "héllo 😀 \ud800 lone" },
    { role: "assistant", content: "", toolCalls: [{ name: "bash", arguments: { cmd: "ls", n: [1, null, { a: undefined }] } }] },
  ],
  extra: { messageFields: { "0": { at: "2025-01-01", nested: { deep: [1, 2, { x: "y" }] } } }, skipped: undefined, empty: {}, list: [] },
};

describe("rollout JSON pieces", () => {
  it("join into exactly JSON.stringify's text, the trajectory last, with the pieces of its trajectory and extra", () => {
    const { trajectory, ...rest } = rollout;
    const { pieces, fields } = rolloutJsonPieces(rollout);
    expect(pieces.join("")).toBe(JSON.stringify({ ...rest, trajectory }));
    expect(ropeOf(pieces)).toBe(JSON.stringify({ ...rest, trajectory }));
    expect(trajectoryJsonPieces(rollout.trajectory!).join("")).toBe(JSON.stringify(rollout.trajectory));
    expect(fields.trajectory!.join("")).toBe(JSON.stringify(rollout.trajectory));
    expect(fields.extra!.join("")).toBe(JSON.stringify(rollout.extra));
  });

  it("hash as the joined text would, so uids stay what earlier imports stored", () => {
    const pieces = trajectoryJsonPieces(rollout.trajectory!);
    expect(shortHashOfPieces(pieces)).toBe(shortHash(pieces.join("")));
    expect(shortHashOfPieces([])).toBe(shortHash(""));
  });

  it("write a rollout without a trajectory, or with nothing but one, as JSON.stringify does", () => {
    const { trajectory, ...rest } = rollout;
    expect(rolloutJsonPieces(rest as Rollout).pieces.join("")).toBe(JSON.stringify(rest));
    expect(rolloutJsonPieces({ trajectory } as Rollout).pieces.join("")).toBe(JSON.stringify({ trajectory }));
    expect(rolloutJsonPieces({ trajectory } as Rollout).fields).toEqual({ trajectory: trajectoryJsonPieces(trajectory!) });
  });
});
