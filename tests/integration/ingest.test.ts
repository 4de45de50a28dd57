import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { compileHarness, MATH_DETECTORS } from "@evotrainer/core";
import { createDatabase, loadHarnessVersion, registerHarnessVersion } from "@evotrainer/db";
import { ingestRolloutFile, type BatchLabeler, type IngestRolloutFileInput } from "@evotrainer/db/ingest";
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
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
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
        line((({ taskId: _taskId, ...rest }) => rest)(rollout(1, 9, 0))) +
        line(good[3]) +
        line(rollout(1, 2, 0)).slice(0, 25),
    );
    const result = await ingestRolloutFile(pool, input);
    expect(result).toMatchObject({ linesRead: 6, inserted: 3, duplicates: 0, quarantined: 3 });

    const stored = await db.rollout.findMany({ where: { branchId: input.owner.branchId }, orderBy: { uid: "asc" } });
    expect(stored.map((r) => r.uid)).toEqual(["1-t1-0", "1-t1-1", "1-t1-3"]);
    expect(stored[0]!.response).toBe(good[0]!.response);
    expect(stored[1]!.response).toBeNull();
    expect(stored[1]!.rewardComponents).toEqual({ correctness: 1, format: 1 });

    const quarantined = await db.quarantinedLine.findMany({ where: { jobId: input.owner.jobId }, orderBy: { lineNumber: "asc" } });
    expect(quarantined.map((q) => [q.lineNumber, q.source])).toEqual([
      [2, input.source],
      [4, input.source],
      [5, input.source],
    ]);
    expect(quarantined[0]!.reason).toMatch(/JSON/i);
    expect(quarantined[1]!.reason).toMatch(/reward/);
    expect(quarantined[1]!.raw).toContain('"reward":"high"');
    expect(quarantined[2]!.reason).toMatch(/taskId/);
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
    expect(again).toMatchObject({ linesRead: 8, inserted: 0, duplicates: 5, quarantined: 3 });
    expect(await db.rollout.count({ where: { branchId: input.owner.branchId } })).toBe(5);
    expect(await db.quarantinedLine.count({ where: { jobId: input.owner.jobId } })).toBe(3);
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

  it("stores a uid that a new batch holds twice once, under the id of the line stored, and the rest of the batch with it", async () => {
    const twice = rollout(2, 1, 0);
    appendFileSync(file, line(twice) + line({ ...twice, reward: 1 }) + line(rollout(2, 1, 1)));
    const seen: string[] = [];
    const result = await ingestRolloutFile(pool, input, async (client, batch) => {
      seen.push(...batch.inserted.map((row) => row.uid));
      // Read in the batch's own transaction: the ids handed on are the stored rows' ids.
      const { rows } = await client.query<{ id: string; uid: string }>(`SELECT id::text, uid FROM "Rollout" WHERE id = ANY($1::bigint[])`, [batch.inserted.map((row) => String(row.id))]);
      expect(new Map(rows.map((r) => [BigInt(r.id), r.uid]))).toEqual(new Map(batch.inserted.map((row) => [row.id, row.uid])));
    });
    expect(result).toMatchObject({ inserted: 2, duplicates: 1, quarantined: 0 });
    expect(seen.sort()).toEqual(["2-t1-0", "2-t1-1"]);
    expect(await db.rollout.count({ where: { branchId: input.owner.branchId } })).toBe(9);
  });
});

describe("labelled ingest: the math catalog runs on each batch before it is stored", () => {
  const databaseUrl = inject("databaseUrl");
  const db = createDatabase(databaseUrl);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const dir = mkdtempSync(join(tmpdir(), "evo-label-"));
  const file = join(dir, "step_2.jsonl");
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    await pool.end();
    await db.$disconnect();
  });

  it("stores labels with their detector and evidence, keeps flagged text, and counts LabelStat once", async () => {
    const { run, branch, job } = await seedRunWithJob(db, "labels");
    const compiled = compileHarness({ version: 1, detectors: [...MATH_DETECTORS], healthRules: [] });
    if (!compiled.ok) throw new Error("catalog does not compile");
    const harnessId = await db.$transaction((tx) =>
      registerHarnessVersion(tx, { runId: run.id, parentId: null, version: 1, domain: "math", definition: compiled.harness.definition }),
    );
    const { detectorRowIds } = await loadHarnessVersion(db, harnessId);
    // A detector version is immutable: the same key and version with another rule is refused.
    const changed = { ...compiled.harness.definition, version: 2, detectors: compiled.harness.definition.detectors.map((d) => (d.id === "math.truncated" ? { ...d, when: "truncated" } : d)) };
    await expect(
      db.$transaction((tx) => registerHarnessVersion(tx, { runId: run.id, parentId: harnessId, version: 2, domain: "math", definition: changed })),
    ).rejects.toThrow(/detector math.truncated v\d+ is already registered with a different rule/);
    const labeler: BatchLabeler = {
      label: (rollouts) => compiled.harness.label(rollouts, "math", { maxResponseTokens: 64 }).labels,
      detectors: new Map(compiled.harness.detectors.map((d) => [d.definition.id, { rowId: detectorRowIds.get(d.definition.id)!, label: d.definition.label }])),
    };
    const right = { ...rollout(2, 1, 0), response: "So 9 * 2 = 18.\n\\boxed{18}", groundTruth: "18", reward: 1 };
    const wrong = { ...rollout(2, 1, 1), response: "So 9 * 3 = 27.\n\\boxed{27}", groundTruth: "18", reward: 0 };
    const cut = { ...rollout(2, 1, 2), response: "Let me think about 9 * 2", groundTruth: "18", reward: 0, finishReason: "length", truncated: true, responseTokens: 64 };
    writeFileSync(file, [right, wrong, cut].map(line).join(""));
    const labelled = { owner: { runId: run.id, branchId: branch.id, jobId: job.id }, file, source: "rollouts/train/step_2.jsonl", keepText: () => false, labeler };

    expect(await ingestRolloutFile(pool, labelled)).toMatchObject({ inserted: 3 });
    const labels = await db.rolloutLabel.findMany({ where: { branchId: branch.id }, include: { rollout: true }, orderBy: [{ rolloutId: "asc" }, { label: "asc" }] });
    expect(labels.map((l) => `${l.rollout.uid}:${l.label}`)).toEqual(["2-t1-1:wrong_answer", "2-t1-2:format_error", "2-t1-2:truncated", "2-t1-2:wrong_answer"]);
    expect(labels[0]!.evidence).toMatchObject({ answer: "27", expected: "18" });
    // The label names its harness version's own Detector row.
    expect(await db.detector.findUniqueOrThrow({ where: { id: labels[0]!.detectorId } })).toMatchObject({ key: "math.wrong_answer", version: 2 });

    const texts = await db.rollout.findMany({ where: { branchId: branch.id }, orderBy: { uid: "asc" }, select: { uid: true, response: true } });
    expect(texts.map((t) => t.response !== null)).toEqual([false, true, true]);

    await db.ingestCursor.deleteMany({ where: { jobId: job.id } });
    expect(await ingestRolloutFile(pool, labelled)).toMatchObject({ inserted: 0, duplicates: 3 });
    const stats = await db.labelStat.findMany({ where: { branchId: branch.id, step: 2 }, orderBy: { label: "asc" } });
    expect(Object.fromEntries(stats.map((s) => [s.label, `${s.count}/${s.total}`]))).toEqual({
      empty_response: "0/3",
      format_error: "1/3",
      language_mix: "0/3",
      repetition_loop: "0/3",
      tool_error: "0/3",
      truncated: "1/3",
      wrong_answer: "2/3",
    });
  });
});
