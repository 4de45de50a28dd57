import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { compileHarness, MATH_DETECTORS } from "@evotrainer/core";
import { createDatabase, loadHarnessVersion, registerHarnessVersion } from "@evotrainer/db";
import { harnessLabeler, ingestRolloutFile, type IngestRolloutFileInput } from "@evotrainer/db/ingest";
import { seedRunWithJob } from "../support/seed.ts";

// Rewards no float sum adds up exactly, groups whose samples are far apart in the file (so most
// batch cuts split them), dead groups, truncated and wrongly answered rollouts, two splits.
function rollout(i: number): Rollout {
  const task = i % 4;
  const step = 1 + (Math.floor(i / 4) % 3);
  const sample = Math.floor(i / 12);
  const dead = task === 3;
  return {
    uid: `${step}-t${task}-${sample}`,
    split: task === 2 ? "promotion" : "train",
    step,
    taskId: `t${task}`,
    groupId: `t${task}@${step}`,
    sample,
    prompt: `What is ${task} + ${step}?`,
    response: sample % 3 === 0 ? `So it is \\boxed{${task + step + 1}}` : `So it is \\boxed{${task + step}}`,
    reward: dead ? 0.1 : [0.1, 0.7, 1 / 3, 0.2 + 0.1][sample % 4]!,
    rewardComponents: {},
    responseTokens: 17 + ((i * 13) % 29),
    turns: 1,
    finishReason: i % 5 === 0 ? "length" : "stop",
    truncated: i % 5 === 0,
    groundTruth: String(task + step),
  };
}
const line = (r: unknown) => `${JSON.stringify(r)}\n`;

describe("step aggregates are the same whatever the batches a file is ingested in (real Postgres)", () => {
  const databaseUrl = inject("databaseUrl");
  const db = createDatabase(databaseUrl);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const dir = mkdtempSync(join(tmpdir(), "evo-aggregates-"));
  const file = join(dir, "rollouts.jsonl");
  const rows = Array.from({ length: 192 }, (_, i) => rollout(i));
  // A line sent twice counts once.
  writeFileSync(file, [...rows, rows[5]!].map(line).join(""));
  const lineBytes = Math.ceil(line(rows[0]).length);

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    await pool.end();
    await db.$disconnect();
  });

  async function target(name: string): Promise<IngestRolloutFileInput> {
    const { run, branch, job } = await seedRunWithJob(db, name);
    const compiled = compileHarness({ version: 1, detectors: [...MATH_DETECTORS], healthRules: [] });
    if (!compiled.ok) throw new Error("catalog does not compile");
    const harnessId = await db.$transaction((tx) =>
      registerHarnessVersion(tx, { runId: run.id, parentId: null, version: 1, domain: "math", definition: compiled.harness.definition }),
    );
    const { detectorRowIds } = await loadHarnessVersion(db, harnessId);
    return {
      owner: { runId: run.id, branchId: branch.id, jobId: job.id },
      file,
      source: "rollouts/train/rollouts.jsonl",
      keepText: () => false,
      labeler: harnessLabeler(compiled.harness, detectorRowIds, "math", 64),
    };
  }

  async function aggregates(branchId: string) {
    const points = await db.metricPoint.findMany({ where: { branchId }, orderBy: [{ name: "asc" }, { step: "asc" }] });
    const stats = await db.labelStat.findMany({ where: { branchId }, orderBy: [{ split: "asc" }, { step: "asc" }, { label: "asc" }] });
    return {
      points: points.map((p) => `${p.name}@${p.step}=${p.value}`),
      labelStats: stats.map((s) => `${s.split}/${s.step}/${s.label}=${s.count}/${s.total}`),
    };
  }

  /** The points recomputed from every stored row, as a dashboard would if it scanned them. */
  async function recount(branchId: string): Promise<string[]> {
    const { rows } = await pool.query<{ point: string }>(
      `WITH r AS (SELECT * FROM "Rollout" WHERE "branchId" = $1),
            g AS (SELECT split, step, count(*) AS n, min(reward) = max(reward) AS dead FROM r GROUP BY split, step, "groupId"),
            s AS (SELECT split, step, count(*) AS n, sum(reward::numeric) AS reward, sum(truncated::int) AS truncated, sum("responseTokens") AS tokens FROM r GROUP BY split, step),
            d AS (SELECT split, step, COALESCE(avg(dead::int) FILTER (WHERE n >= 2), 0)::float8 AS ratio FROM g GROUP BY split, step)
       SELECT format('%s/%s@%s=%s', split, v.name, step, v.value) AS point
         FROM s JOIN d USING (split, step),
              LATERAL (VALUES ('reward_mean', (reward / n)::float8), ('truncation_rate', (truncated::numeric / n)::float8),
                              ('response_tokens_mean', (tokens::numeric / n)::float8), ('dead_group_ratio', ratio), ('rollouts', n::float8)) AS v(name, value)`,
      [branchId],
    );
    return rows.map((r) => r.point.replace(/=(.*)$/, (_, v: string) => `=${Number(v)}`));
  }

  it("adds each batch to exact totals: one batch, one line per batch, a few lines, and a kill then a resume all match a recount of every row", async () => {
    const once = await target("aggregates-once");
    expect(await ingestRolloutFile(pool, once)).toMatchObject({ inserted: rows.length, duplicates: 1 });
    const expected = await aggregates(once.owner.branchId);
    expect(expected.points).toContain("train/rollouts@1=48");
    expect(expected.points.some((p) => /^train\/dead_group_ratio@\d=0\.333/.test(p))).toBe(true);
    expect(expected.points.some((p) => p.startsWith("promotion/label/wrong_answer@"))).toBe(true);

    expect((await recount(once.owner.branchId)).sort()).toEqual(expected.points.filter((p) => !p.includes("/label/")).sort());

    for (const batchBytes of [1, 3 * lineBytes, 10 * lineBytes]) {
      const cut = await target(`aggregates-${batchBytes}`);
      await ingestRolloutFile(pool, { ...cut, batchBytes });
      expect(await aggregates(cut.owner.branchId)).toEqual(expected);
    }

    const killed = await target("aggregates-killed");
    let batches = 0;
    const killOnFifth = async () => {
      if (++batches === 5) throw new Error("worker killed");
    };
    await expect(ingestRolloutFile(pool, { ...killed, batchBytes: 7 * lineBytes }, killOnFifth)).rejects.toThrow("worker killed");
    await ingestRolloutFile(pool, { ...killed, batchBytes: 4 * lineBytes });
    expect(await aggregates(killed.owner.branchId)).toEqual(expected);
  });

  it("a result read again that differs replaces the stored one, and the totals and dead groups follow it across batches; read once more, nothing changes", async () => {
    const graded = await target("aggregates-results");
    await ingestRolloutFile(pool, graded);
    const before = await aggregates(graded.owner.branchId);
    // Graded again: task 0's groups all 0.7 (they die), task 3's first sample at step 2 0.9 (its dead group comes alive).
    const regraded = rows.map((r) => {
      const reward = r.taskId === "t0" ? 0.7 : r.taskId === "t3" && r.step === 2 && r.sample === 0 ? 0.9 : r.reward;
      return { ...r, reward, rewardComponents: { score: reward } };
    });
    const file = join(dir, "regraded.jsonl");
    writeFileSync(file, regraded.map(line).join(""));
    const again = await ingestRolloutFile(pool, { ...graded, file, batchBytes: 10 * lineBytes });
    expect(again).toMatchObject({ rewritten: true, inserted: 0, duplicates: rows.length, resultsChanged: rows.length });
    const after = await aggregates(graded.owner.branchId);
    expect(after.points).not.toEqual(before.points);
    expect(after.points.filter((p) => !p.includes("/label/")).sort()).toEqual((await recount(graded.owner.branchId)).sort());
    expect(before.points.filter((p) => p.startsWith("train/dead_group_ratio@"))).toEqual(["train/dead_group_ratio@1=0.3333333333333333", "train/dead_group_ratio@2=0.3333333333333333", "train/dead_group_ratio@3=0.3333333333333333"]);
    expect(after.points.filter((p) => p.startsWith("train/dead_group_ratio@"))).toEqual(["train/dead_group_ratio@1=0.6666666666666666", "train/dead_group_ratio@2=0.3333333333333333", "train/dead_group_ratio@3=0.6666666666666666"]);

    // The cursor lost, every line is read again: the rows already hold these results.
    await db.ingestCursor.deleteMany({ where: { jobId: graded.owner.jobId } });
    expect(await ingestRolloutFile(pool, { ...graded, file })).toMatchObject({ inserted: 0, resultsChanged: 0 });
    expect(await aggregates(graded.owner.branchId)).toEqual(after);
  });
});
