import { describe, expect, it } from "vitest";
import { rolloutSchema } from "@evotrainer/contract";
import { parsePythonJson } from "../python-json.ts";
import { verlDumpToRollouts, type VerlDumpLine } from "./verl-dump.ts";
import { verlMetricsToContract } from "./verl-metrics.ts";

const prompt = "<|im_start|>user\nJanet’s ducks lay 16 eggs per day. ... How much does she make every day?<|im_end|>\n<|im_start|>assistant\n";

// Lines as verl's _dump_generations writes them: a validation dump with reward extras...
const validation: VerlDumpLine[] = [
  { input: prompt, output: "16 - 3 - 4 = 9; 9 * 2 = 18\n#### 18", gts: "18", score: 1, step: 20, acc: true, pred: "18" },
  { input: prompt, output: "16 - 3 = 13; 13 * 2 = 26\n#### 26", gts: "18", score: 0, step: 20, acc: false, pred: "26" },
];
// ...and a v1 training dump, with uid = {sample}_{rollout}_{output} in place of the extras.
const training: VerlDumpLine[] = [
  { input: prompt, output: "#### 18", gts: "18", score: 1, step: 3, uid: "0_0_0" },
  { input: prompt, output: "#### 26", gts: "18", score: 0, step: 3, uid: "0_1_0" },
  { input: "another prompt", output: "#### 5", gts: "5", score: 1, step: 3, uid: "1_0_0" },
];

describe("verlDumpToRollouts", () => {
  it("maps every line to a valid contract rollout with text, ground truth, score and reward extras", () => {
    const rows = verlDumpToRollouts(validation, { split: "promotion", step: 20 });
    for (const row of rows) expect(rolloutSchema.safeParse(row).success).toBe(true);
    expect(rows[1]).toMatchObject({
      split: "promotion", step: 20, prompt, response: "16 - 3 = 13; 13 * 2 = 26\n#### 26", reward: 0, groundTruth: "18", sample: 1,
      extra: { acc: false, pred: "26" },
    });
    expect(rows[0]!.groupId).toBe(rows[1]!.groupId);
    expect(rows[0]!.taskId).toBe(rows[1]!.taskId);
    expect(new Set(rows.map((r) => r.uid)).size).toBe(2);
  });

  it("takes the sample index from verl's v1 uid and keeps uids stable and distinct across steps", () => {
    const rows = verlDumpToRollouts(training, { split: "train", step: 3 });
    expect(rows.map((r) => r.sample)).toEqual([0, 1, 0]);
    expect(rows.map((r) => r.uid)).toEqual(["verl/train/3/0_0_0", "verl/train/3/0_1_0", "verl/train/3/1_0_0"]);
    expect(rows[2]!.taskId).not.toBe(rows[0]!.taskId);
    // Same input again: same ids, so a re-import inserts nothing new.
    expect(verlDumpToRollouts(training, { split: "train", step: 3 })).toEqual(rows);
    // verl's uids restart every step; the contract's must not collide.
    const next = verlDumpToRollouts(training.map((l) => ({ ...l, step: 4 })), { split: "train", step: 4 });
    expect(next.map((r) => r.uid).filter((uid) => rows.some((r) => r.uid === uid))).toEqual([]);
    expect(next[0]!.taskId).toBe(rows[0]!.taskId);
    expect(next[0]!.groupId).not.toBe(rows[0]!.groupId);
  });

  it("puts numeric reward extras in rewardComponents and hashes a uid when verl wrote none", () => {
    const [row] = verlDumpToRollouts([{ input: "p", output: "o", gts: "1", score: 0.5, step: 2, correctness: 1, overlong: -0.5 }], { split: "train", step: 2 });
    expect(row!.rewardComponents).toEqual({ correctness: 1, overlong: -0.5 });
    expect(row!.uid).toMatch(/^verl\/train\/2\/[0-9a-f]{16}$/);
  });

  it("leaves a NaN score (Python writes NaN) to be refused by the contract", () => {
    const line = parsePythonJson('{"input": "p", "output": "NaN here", "gts": "1", "score": NaN, "step": 1}') as VerlDumpLine;
    expect(line.output).toBe("NaN here");
    const [row] = verlDumpToRollouts([line], { split: "train", step: 1 });
    expect(rolloutSchema.safeParse(JSON.parse(JSON.stringify(row))).success).toBe(false);
  });
});

describe("verlMetricsToContract", () => {
  it("keeps numeric metrics per step, adds the short names and keeps the last line of a re-logged step", () => {
    const lines = [
      '{"step": 2, "data": {"actor/entropy": 0.5, "actor/kl_loss": 0.01, "actor/pg_clipfrac": 0.1, "critic/score/mean": 0.4}}',
      '{"step": 1, "elapsed_seconds": 3.2, "data": {"actor/entropy": 0.6, "response_length/mean": 210.5, "actor/grad_norm": NaN}}',
      '{"step": 2, "data": {"actor/entropy": 0.45}}',
    ].map(parsePythonJson);
    expect(verlMetricsToContract(lines)).toEqual([
      { step: 1, data: { "actor/grad_norm": null, "actor/entropy": 0.6, "response_length/mean": 210.5, entropy: 0.6 } },
      { step: 2, data: { "actor/entropy": 0.45, entropy: 0.45 } },
    ]);
  });
});
