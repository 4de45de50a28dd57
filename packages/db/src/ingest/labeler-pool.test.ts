import { afterAll, describe, expect, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { compileHarness, MATH_DETECTORS } from "@evotrainer/core";
import { LabelerPool } from "./labeler-pool.ts";

const rollout = (i: number): Rollout => ({
  uid: `u${i}`,
  split: "train",
  step: 1,
  taskId: `t${i}`,
  groupId: `t${i}@1`,
  sample: 0,
  prompt: "What is 9 * 2?",
  response: i % 3 === 0 ? "9 * 2 = 18\n\\boxed{18}" : i % 3 === 1 ? "9 * 2 = 19\n\\boxed{19}" : "Let me think about 9 * 2",
  reward: i % 3 === 0 ? 1 : 0,
  rewardComponents: {},
  responseTokens: i % 3 === 2 ? 256 : 20,
  turns: 1,
  truncated: i % 3 === 2,
  groundTruth: "18",
});

describe("LabelerPool (worker threads)", () => {
  const pool = new LabelerPool(2);
  afterAll(() => pool.close());

  it("labels exactly as the harness does in-thread, across threads and batches", async () => {
    const compiled = compileHarness({ version: 1, detectors: [...MATH_DETECTORS], healthRules: [] });
    if (!compiled.ok) throw new Error("catalog does not compile");
    const rollouts = Array.from({ length: 101 }, (_, i) => rollout(i));
    const expected = compiled.harness.label(rollouts, "math", { maxResponseTokens: 256 }).labels;
    const key = (l: { rolloutUid: string; detectorId: string }) => `${l.rolloutUid}|${l.detectorId}`;
    for (let batch = 0; batch < 2; batch++) {
      const got = await pool.label("math-v1", compiled.harness.definition, "math", 256, rollouts);
      expect(got.map(key).sort()).toEqual(expected.map(key).sort());
    }
    expect(expected.length).toBeGreaterThan(100);
  });

  it("reports a harness that does not compile instead of hanging", async () => {
    const broken = { version: 2, detectors: [{ ...MATH_DETECTORS[0]!, id: "math.broken", when: "nope(" }], healthRules: [] };
    await expect(pool.label("broken-v2", broken, "math", 256, [rollout(0), rollout(1)])).rejects.toThrow(/does not compile/);
  });

  it("is idle once a thread has started and while it has nothing to do, so ingest labels on its own thread meanwhile", async () => {
    const compiled = compileHarness({ version: 1, detectors: [...MATH_DETECTORS], healthRules: [] });
    if (!compiled.ok) throw new Error("catalog does not compile");
    const fresh = new LabelerPool(1);
    try {
      expect(fresh.size).toBe(1);
      // Still loading the harness code.
      expect(fresh.idle).toBe(false);
      await fresh.ready();
      expect(fresh.idle).toBe(true);
      const labelling = fresh.label("math-v1", compiled.harness.definition, "math", 256, [rollout(0), rollout(1)]);
      expect(fresh.idle).toBe(false);
      await labelling;
      expect(fresh.idle).toBe(true);
    } finally {
      await fresh.close();
    }
  });
});
