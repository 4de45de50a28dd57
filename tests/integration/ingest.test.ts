import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { createDatabase } from "@evotrainer/db";
import { ingestRolloutFile, type IngestRolloutFileInput } from "@evotrainer/db/ingest";
import { seedRunWithJob } from "../support/seed.ts";

function rollout(step: number, task: number, sample: number, split: Rollout["split"] = "train"): Rollout {
  return {
    uid: `${step}-t${task}-${sample}`,
    split,
    step,
    taskId: `t${task}`,
    groupId: `t${task}@${step}`,
    sample,
    prompt: `What is ${task} + ${sample}?`,
    response: `The answer is \\boxed{${task + sample}} — "quoted", comma, and a\nnewline`,
    reward: sample % 2,
    rewardComponents: { correctness: sample % 2, format: 1 },
    responseTokens: 40 + sample,
    turns: 1,
    finishReason: "stop",
    truncated: false,
  };
}
const line = (r: unknown) => `${JSON.stringify(r)}\n`;

describe("streaming rollout ingest (COPY + ON CONFLICT on a real Postgres)", () => {
  const databaseUrl = inject("databaseUrl");
  const db = createDatabase(databaseUrl);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const dir = mkdtempSync(join(tmpdir(), "evo-ingest-"));
  const file = join(dir, "step_1.jsonl");
  let input: IngestRolloutFileInput;

  beforeAll(async () => {
    const { run, branch, job } = await seedRunWithJob(db, "ingest");
    input = {
      owner: { runId: run.id, branchId: branch.id, jobId: job.id },
      file,
      source: "rollouts/train/step_1.jsonl",
      keepText: (r) => r.split !== "train" || r.sample === 0,
    };
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await pool.end();
    await db.$disconnect();
  });

  it("loads good lines, quarantines bad ones with line number and reason, and waits for a half-written line", async () => {
    const good = [0, 1, 2, 3].map((s) => rollout(1, 1, s));
    writeFileSync(
      file,
      line(good[0]) +
        "{not json\n" +
        line(good[1]) +
        line({ ...good[2], reward: "high" }) +
        line(good[3]) +
        line(rollout(1, 2, 0)).slice(0, 25),
    );
    const result = await ingestRolloutFile(pool, input);
    expect(result).toMatchObject({ linesRead: 5, inserted: 3, duplicates: 0, quarantined: 2 });

    const stored = await db.rollout.findMany({ where: { branchId: input.owner.branchId }, orderBy: { uid: "asc" } });
    expect(stored.map((r) => r.uid)).toEqual(["1-t1-0", "1-t1-1", "1-t1-3"]);
    expect(stored[0]!.response).toBe(good[0]!.response);
    expect(stored[1]!.response).toBeNull();
    expect(stored[1]!.rewardComponents).toEqual({ correctness: 1, format: 1 });

    const quarantined = await db.quarantinedLine.findMany({ where: { jobId: input.owner.jobId }, orderBy: { lineNumber: "asc" } });
    expect(quarantined.map((q) => [q.lineNumber, q.source])).toEqual([
      [2, input.source],
      [4, input.source],
    ]);
    expect(quarantined[0]!.reason).toMatch(/JSON/i);
    expect(quarantined[1]!.reason).toMatch(/reward/);
    expect(quarantined[1]!.raw).toContain('"reward":"high"');
  });

  it("picks up where it stopped once the line is complete, then new lines, exactly once", async () => {
    appendFileSync(file, line(rollout(1, 2, 0)).slice(25) + line(rollout(1, 2, 1)));
    expect(await ingestRolloutFile(pool, input)).toMatchObject({ linesRead: 2, inserted: 2, quarantined: 0 });
    expect(await ingestRolloutFile(pool, input)).toMatchObject({ linesRead: 0, inserted: 0 });
    expect(await db.rollout.count({ where: { branchId: input.owner.branchId } })).toBe(5);
  });

  it("never duplicates when the cursor is lost and the whole file is read again", async () => {
    await db.ingestCursor.deleteMany({ where: { jobId: input.owner.jobId } });
    const again = await ingestRolloutFile(pool, input);
    expect(again).toMatchObject({ linesRead: 7, inserted: 0, duplicates: 5, quarantined: 2 });
    expect(await db.rollout.count({ where: { branchId: input.owner.branchId } })).toBe(5);
    expect(await db.quarantinedLine.count({ where: { jobId: input.owner.jobId } })).toBe(2);
  });

  it("rolls a failed batch back whole, so a retry ingests it completely", async () => {
    appendFileSync(file, line(rollout(1, 3, 0)) + line(rollout(1, 3, 1)));
    await expect(
      ingestRolloutFile(pool, input, async () => {
        throw new Error("worker killed mid-batch");
      }),
    ).rejects.toThrow("worker killed mid-batch");
    expect(await db.rollout.count({ where: { branchId: input.owner.branchId } })).toBe(5);

    const seen: string[] = [];
    const retry = await ingestRolloutFile(pool, input, async (_client, batch) => {
      seen.push(...batch.inserted.map((row) => `${row.uid}:${row.rollout.taskId}:${typeof row.id}`));
    });
    expect(retry).toMatchObject({ inserted: 2, duplicates: 0 });
    expect(seen).toEqual(["1-t3-0:t3:bigint", "1-t3-1:t3:bigint"]);
    expect(await db.rollout.count({ where: { branchId: input.owner.branchId } })).toBe(7);
  });
});
