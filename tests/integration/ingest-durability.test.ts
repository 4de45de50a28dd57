import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { createDatabase } from "@evotrainer/db";
import { ingestRolloutFile, ingestTrainerMetricsFile, type IngestRolloutFileInput } from "@evotrainer/db/ingest";
import { seedRunWithJob } from "../support/seed.ts";

function rollout(step: number, task: number, sample: number, extra: Partial<Rollout> = {}): Rollout {
  return {
    uid: `${step}-t${task}-${sample}`,
    split: "train",
    step,
    taskId: `t${task}`,
    groupId: `t${task}@${step}`,
    sample,
    prompt: `What is ${task} + ${sample}?`,
    response: `#### ${task + sample}`,
    reward: (task + sample) % 2,
    rewardComponents: {},
    responseTokens: 10 + sample,
    turns: 1,
    finishReason: "stop",
    truncated: false,
    ...extra,
  };
}
const line = (r: unknown) => `${JSON.stringify(r)}\n`;

describe("ingest keeps every row and everything derived from it (real Postgres)", () => {
  const databaseUrl = inject("databaseUrl");
  const db = createDatabase(databaseUrl);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const dir = mkdtempSync(join(tmpdir(), "evo-durable-"));

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    await pool.end();
    await db.$disconnect();
  });

  async function target(name: string, file: string): Promise<IngestRolloutFileInput> {
    const { run, branch, job } = await seedRunWithJob(db, name);
    return { owner: { runId: run.id, branchId: branch.id, jobId: job.id }, file, source: `rollouts/train/${name}.jsonl`, keepText: () => true };
  }

  it("stores ground truth as the JSON value it is: strings stay strings, even ones that look like JSON", async () => {
    const truths: unknown[] = ["2,125", "\\frac{1}{2}", "007", "18", "true", "null", 18, 2.5, true, ["a", 1], { answer: "x" }];
    const file = join(dir, "truths.jsonl");
    writeFileSync(file, truths.map((groundTruth, i) => line(rollout(1, i, 0, { groundTruth }))).join(""));
    const input = await target("truths", file);
    expect(await ingestRolloutFile(pool, input)).toMatchObject({ inserted: truths.length, quarantined: 0 });
    const stored = await db.rollout.findMany({ where: { branchId: input.owner.branchId }, orderBy: { id: "asc" } });
    expect(stored.map((r) => r.groundTruth)).toEqual(truths);
  });

  it("escapes NUL, unpaired surrogates and bytes that are not UTF-8, flags the rollout, and never aborts the batch", async () => {
    const file = join(dir, "bytes.jsonl");
    const nul = line(rollout(1, 1, 0, { response: "before\u0000after", extra: { tool: "a\u0000b" } }));
    const surrogate = line(rollout(1, 1, 1, { response: "half \ud83d of an emoji" }));
    const [head, tail] = line(rollout(1, 1, 2, { response: "caf~here" })).split("~");
    const latin1 = Buffer.concat([Buffer.from(head!), Buffer.from([0xe9, 0xff]), Buffer.from(tail!)]);
    writeFileSync(file, Buffer.concat([Buffer.from(nul), Buffer.from(surrogate), latin1, Buffer.from(line(rollout(1, 1, 3)))]));
    const input = await target("bytes", file);
    expect(await ingestRolloutFile(pool, input)).toMatchObject({ inserted: 4, quarantined: 0 });
    const stored = await db.rollout.findMany({ where: { branchId: input.owner.branchId }, orderBy: { sample: "asc" } });
    expect(stored[0]).toMatchObject({ response: "before\\u0000after", extra: { tool: "a\\u0000b", sanitized: ["nul"] } });
    expect(stored[1]).toMatchObject({ response: "half \ufffd of an emoji", extra: { sanitized: ["lone_surrogate"] } });
    expect(stored[2]).toMatchObject({ response: "caf\ufffd\ufffdhere", extra: { sanitized: ["invalid_utf8"] } });
    expect(stored[3]!.extra).toBeNull();
  });

  it("quarantines a row the database refuses with its line number and keeps the rest of the batch", async () => {
    const file = join(dir, "refused.jsonl");
    // A step past int4 passes the schema (any non-negative integer) but not the column.
    writeFileSync(file, line(rollout(1, 1, 0)) + line(rollout(3_000_000_000, 1, 1)) + line(rollout(1, 1, 2)));
    const input = await target("refused", file);
    expect(await ingestRolloutFile(pool, input)).toMatchObject({ inserted: 2, quarantined: 1 });
    const [bad] = await db.quarantinedLine.findMany({ where: { jobId: input.owner.jobId } });
    expect(bad).toMatchObject({ source: input.source, lineNumber: 2 });
    expect(bad!.reason).toMatch(/database refused it: .*out of range/);
  });

  it("commits step aggregates with their rows: a crash between batches loses none, and resuming matches a one-shot ingest", async () => {
    const file = join(dir, "crash.jsonl");
    const rows = [1, 2, 3].flatMap((step) => [1, 2].flatMap((task) => [0, 1, 2, 3].map((s) => rollout(step, task, s))));
    writeFileSync(file, rows.map(line).join(""));
    const once = await target("crash-once", file);
    await ingestRolloutFile(pool, once);

    const crashed = await target("crash-resumed", file);
    let batches = 0;
    const crashOnThird = async () => {
      if (++batches === 3) throw new Error("worker killed");
    };
    await expect(ingestRolloutFile(pool, { ...crashed, batchBytes: 1 }, crashOnThird)).rejects.toThrow("worker killed");
    const committed = await db.metricPoint.findMany({ where: { branchId: crashed.owner.branchId, name: "train/rollouts" } });
    expect(committed.map((p) => p.value).reduce((a, b) => a + b, 0)).toBe(2);
    await ingestRolloutFile(pool, { ...crashed, batchBytes: 1 });

    const points = async (branchId: string) =>
      (await db.metricPoint.findMany({ where: { branchId }, orderBy: [{ name: "asc" }, { step: "asc" }] })).map((p) => `${p.name}@${p.step}=${p.value.toFixed(6)}`);
    const expected = await points(once.owner.branchId);
    expect(expected).toContain("train/rollouts@2=8.000000");
    expect(expected.some((p) => p.startsWith("train/dead_group_ratio@3="))).toBe(true);
    expect(await points(crashed.owner.branchId)).toEqual(expected);
  });

  it("reads a file rewritten at the same path again from the start, adding only rows it had not stored", async () => {
    const file = join(dir, "rewritten.jsonl");
    writeFileSync(file, [0, 1, 2, 3].map((s) => line(rollout(1, 1, s))).join(""));
    const input = await target("rewritten", file);
    expect(await ingestRolloutFile(pool, input)).toMatchObject({ inserted: 4, rewritten: false });
    writeFileSync(file, [7, 0].map((s) => line(rollout(1, 1, s))).join(""));
    expect(await ingestRolloutFile(pool, input)).toMatchObject({ inserted: 1, duplicates: 1, rewritten: true });
    expect(await ingestRolloutFile(pool, input)).toMatchObject({ linesRead: 0, rewritten: false });
  });

  it("brings trainer metrics in from a cursor that commits with the points", async () => {
    const file = join(dir, "metrics.jsonl");
    const metric = (step: number, reward: number | null) => line({ step, data: { "critic/score/mean": reward, "actor/entropy": 0.5 } });
    writeFileSync(file, metric(1, 0.25) + metric(2, null));
    const { owner } = await target("metrics", file);
    const input = { jobId: owner.jobId, branchId: owner.branchId, file, source: "metrics.jsonl" };
    expect(await ingestTrainerMetricsFile(pool, input)).toEqual({ steps: 2 });
    // A trainer resumed from its step-1 checkpoint logs step 2 again: the later line wins.
    writeFileSync(file, metric(1, 0.25) + metric(2, null) + metric(3, 0.75) + metric(2, 0.5) + metric(3, 0.8));
    expect(await ingestTrainerMetricsFile(pool, input)).toEqual({ steps: 3 });
    const points = await db.metricPoint.findMany({ where: { branchId: owner.branchId, name: "trainer/critic/score/mean" }, orderBy: { step: "asc" } });
    expect(points.map((p) => [p.step, p.value])).toEqual([[1, 0.25], [2, 0.5], [3, 0.8]]);
  });
});
