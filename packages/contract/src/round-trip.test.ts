import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readCheckpoint, writeCheckpoint, type Checkpoint } from "./checkpoint.ts";
import { ContractFileError } from "./contract-error.ts";
import { readEval, writeEval, type EvalResult } from "./eval.ts";
import { readHeartbeat, writeHeartbeat, type Heartbeat } from "./heartbeat.ts";
import { parseJsonlLine } from "./jsonl-line.ts";
import { readJsonlFrom } from "./jsonl-tail.ts";
import { appendMetrics, metricsLineSchema } from "./metrics.ts";
import { paths } from "./paths.ts";
import { appendRollouts } from "./rollout-files.ts";
import { rolloutSchema } from "./rollout.ts";
import { readStatus, writeStatus } from "./status.ts";
import { validRollout } from "./test-fixtures.ts";
import type { z } from "zod";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "evo-contract-rt-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readAllJsonl<S extends z.ZodType>(file: string, schema: S): Promise<z.output<S>[]> {
  const { lines } = await readJsonlFrom(file, { byteOffset: 0, lineNumber: 0 });
  return lines.map((line) => {
    const parsed = parseJsonlLine(line.text, schema);
    if (!parsed.ok) throw new Error(parsed.reason);
    return parsed.value;
  });
}

describe("round trips: what the trainer writes, the control plane reads back unchanged", () => {
  it("metrics.jsonl, in verl's {step, data} shape, non-finite values as null", async () => {
    await appendMetrics(dir, 1, { "actor/entropy": 0.91, "critic/score/mean": 0.25 });
    await appendMetrics(dir, 2, { "actor/entropy": Number.NaN, "actor/kl": Number.POSITIVE_INFINITY, "x": null });
    expect(await readFile(paths(dir).metrics, "utf8")).toBe(
      '{"step":1,"data":{"actor/entropy":0.91,"critic/score/mean":0.25}}\n' +
        '{"step":2,"data":{"actor/entropy":null,"actor/kl":null,"x":null}}\n',
    );
    expect(await readAllJsonl(paths(dir).metrics, metricsLineSchema)).toEqual([
      { step: 1, data: { "actor/entropy": 0.91, "critic/score/mean": 0.25 } },
      { step: 2, data: { "actor/entropy": null, "actor/kl": null, x: null } },
    ]);
  });

  it("rollouts/{train,eval}/step_N.jsonl", async () => {
    const train = [validRollout(), validRollout({ uid: "u2", sample: 1, reward: 0, truncated: true })];
    const evalRows = [
      validRollout({ uid: "e1", split: "promotion", step: 10 }),
      validRollout({
        uid: "e2",
        split: "sealed",
        step: 10,
        response: undefined,
        trajectory: [{ role: "assistant", content: "hi" }],
      }),
    ];
    const writtenTrain = await appendRollouts(dir, "train", 3, train);
    const writtenEval = await appendRollouts(dir, "eval", 10, evalRows);
    expect(await readAllJsonl(paths(dir).rolloutsFile("train", 3), rolloutSchema)).toEqual(writtenTrain);
    expect(await readAllJsonl(paths(dir).rolloutsFile("eval", 10), rolloutSchema)).toEqual(writtenEval);
    expect(writtenTrain).toEqual(train.map((row) => rolloutSchema.parse(row)));
  });

  it("eval/step_N.json", async () => {
    const result: EvalResult = {
      step: 20,
      splits: {
        promotion: {
          score: 0.5,
          tasks: [
            { taskId: "t1", samples: 4, meanReward: 0.75, passRate: 0.75 },
            { taskId: "t2", samples: 4, meanReward: 0.25, passRate: 0.25 },
          ],
        },
      },
    };
    await writeEval(dir, result);
    expect(await readEval(dir, 20)).toEqual(result);
    expect(await readEval(dir, 21)).toBeNull();
  });

  it("checkpoints/latest.json", async () => {
    const checkpoint: Checkpoint = { step: 20, path: "checkpoints/step_20", createdAt: "2026-05-01T12:00:00.000Z" };
    expect(await readCheckpoint(dir)).toBeNull();
    await writeCheckpoint(dir, checkpoint);
    expect(await readCheckpoint(dir)).toEqual(checkpoint);
  });

  it("heartbeat.json, replaced on every beat", async () => {
    const beat: Heartbeat = { step: 3, time: "2026-05-01T12:00:00+02:00", phase: "rollout", progress: 0.075 };
    await writeHeartbeat(dir, beat);
    expect(await readHeartbeat(dir)).toEqual(beat);
    const next: Heartbeat = { ...beat, step: 4, phase: "eval", progress: 0.1, message: "evaluating promotion" };
    await writeHeartbeat(dir, next);
    expect(await readHeartbeat(dir)).toEqual(next);
  });

  it("status.json, defaults filled in", async () => {
    expect(await readStatus(dir)).toBeNull();
    await writeStatus(dir, { state: "running" });
    expect(await readStatus(dir)).toEqual({ state: "running", exitCode: null, lastStep: null });
    const failed = { state: "failed", exitCode: 75, failureClass: "preempted", lastStep: 12, message: "drained" } as const;
    await writeStatus(dir, failed);
    expect(await readStatus(dir)).toEqual(failed);
  });
});

describe("readers name the file for malformed content", () => {
  const badTask = { taskId: "t", samples: 1, meanReward: 1, passRate: 2 };
  const badEval = { step: 1, splits: { promotion: { score: 1, tasks: [badTask] } } };
  it.each([
    ["status", () => readStatus(dir), () => paths(dir).status, { state: "done" }, "state"],
    [
      "heartbeat",
      () => readHeartbeat(dir),
      () => paths(dir).heartbeat,
      { step: 1, time: "yesterday", phase: "rollout", progress: 0 },
      "time",
    ],
    [
      "checkpoint",
      () => readCheckpoint(dir),
      () => paths(dir).latestCheckpoint,
      { step: 1, createdAt: "2026-05-01T00:00:00Z" },
      "path",
    ],
    ["eval", () => readEval(dir, 1), () => paths(dir).evalFile(1), badEval, "splits.promotion.tasks[0].passRate"],
  ])("%s", async (_name, read, file, content, field) => {
    const target = file();
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, JSON.stringify(content));
    const error = await read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContractFileError);
    expect((error as ContractFileError).file).toBe(target);
    expect((error as ContractFileError).issues.map((issue) => issue.path)).toEqual([field]);
  });

  it("a truncated JSON file is a syntax error naming the file", async () => {
    await writeFile(paths(dir).status, '{"state":"succ');
    await expect(readStatus(dir)).rejects.toThrow(new RegExp(`^${paths(dir).status}: not valid JSON`));
  });
});

describe("writers refuse values that break the contract", () => {
  it("rollouts in the wrong file or invalid", async () => {
    await expect(appendRollouts(dir, "train", 4, [validRollout()])).rejects.toThrow(/does not belong in train\/ step 4/);
    await expect(appendRollouts(dir, "eval", 3, [validRollout()])).rejects.toThrow(/does not belong in eval\//);
    await expect(appendRollouts(dir, "train", 3, [validRollout(), validRollout({ taskId: "" })])).rejects.toMatchObject({
      issues: [{ path: "[1].taskId" }],
    });
    await expect(readFile(paths(dir).rolloutsFile("train", 3))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("metrics with a bad step", async () => {
    await expect(appendMetrics(dir, -1, {})).rejects.toBeInstanceOf(ContractFileError);
  });
});
