import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { rolloutSchema } from "@evotrainer/contract";
import { readTrlCompletions } from "./trl-completions.ts";
import { trlLogHistoryToContract } from "./trl-metrics.ts";
import { writeTrlCompletionsParquet } from "./trl-test-parquet.ts";

const dir = mkdtempSync(join(tmpdir(), "evo-trl-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const batch = (answer: string) => [
  { prompt: "What is 9 * 2?", completion: "#### 18", rewards: { accuracy_reward: 1, format_reward: 1 }, advantage: 0.7 },
  { prompt: "What is 9 * 2?", completion: `#### ${answer}`, rewards: { accuracy_reward: answer === "18" ? 1 : 0, format_reward: 1 }, advantage: -0.7 },
  { prompt: "What is 2 + 2?", completion: "four", rewards: { accuracy_reward: 0, format_reward: null }, advantage: 0 },
];

describe("readTrlCompletions", () => {
  it("reads TRL's parquet files in step order into contract rollouts, dropping a file that repeats the previous one", async () => {
    writeTrlCompletionsParquet(join(dir, "completions_00001.parquet"), 1, batch("26"));
    writeTrlCompletionsParquet(join(dir, "completions_00002.parquet"), 2, batch("26")); // the same generation batch logged again
    writeTrlCompletionsParquet(join(dir, "completions_00003.parquet"), 3, batch("18"));
    const steps = await readTrlCompletions(dir, { rewardWeights: { format_reward: 0.5 } });
    expect(steps.map((s) => [s.step, s.rollouts.length, s.duplicates])).toEqual([[1, 3, 0], [2, 0, 3], [3, 3, 0]]);
    const [first, second, third] = steps[0]!.rollouts;
    for (const row of steps.flatMap((s) => s.rollouts)) expect(rolloutSchema.safeParse(row).success).toBe(true);
    expect(first).toMatchObject({ split: "train", step: 1, prompt: "What is 9 * 2?", response: "#### 18", reward: 1.5, sample: 0, rewardComponents: { accuracy_reward: 1, format_reward: 1 }, extra: { advantage: 0.7 } });
    expect(second).toMatchObject({ sample: 1, reward: 0.5, groupId: first!.groupId });
    // A reward function that returned None is left out of the sum, as TRL's nansum does.
    expect(third).toMatchObject({ reward: 0, rewardComponents: { accuracy_reward: 0 } });
    expect(third!.taskId).not.toBe(first!.taskId);
    // The same row in another generation is another rollout (another uid), and reading again gives the same uids.
    expect(steps[2]!.rollouts[0]!.uid).not.toBe(first!.uid);
    expect((await readTrlCompletions(dir, { rewardWeights: { format_reward: 0.5 } }))[0]!.rollouts.map((r) => r.uid)).toEqual(steps[0]!.rollouts.map((r) => r.uid));
  });
});

describe("trlLogHistoryToContract", () => {
  it("merges log_history entries per step and adds the clip_fraction short name", () => {
    expect(trlLogHistoryToContract([
      { step: 1, epoch: 0.01, loss: 0.02, reward: 0.4, kl: 0.001, entropy: 0.9, "clip_ratio/region_mean": 0.05, learning_rate: 1e-6 },
      { step: 1, eval_reward: 0.5 },
      { train_runtime: 12.5, step: 2, reward: 0.6, grad_norm: Number.NaN },
    ])).toEqual([
      { step: 1, data: { epoch: 0.01, loss: 0.02, reward: 0.4, kl: 0.001, entropy: 0.9, "clip_ratio/region_mean": 0.05, clip_fraction: 0.05, learning_rate: 1e-6, eval_reward: 0.5 } },
      { step: 2, data: { train_runtime: 12.5, reward: 0.6, grad_norm: null } },
    ]);
  });
});
