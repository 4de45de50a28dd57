import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { readTrlRun, trlRunLayout } from "@evotrainer/adapters";
import { paths } from "@evotrainer/contract";
import { compileHarness, runConfigSchema } from "@evotrainer/core";
import { createDatabase, createRun, loadHarnessVersion } from "@evotrainer/db";
import { harnessLabeler, ingestRolloutFile } from "@evotrainer/db/ingest";
import { writeTrlRunDir } from "../support/trl-run-dir.ts";

const databaseUrl = inject("databaseUrl");
const db = createDatabase(databaseUrl);
const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
const dir = mkdtempSync(join(tmpdir(), "evo-trl-import-"));

describe("importing a TRL run", () => {
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    await pool.end();
    await db.$disconnect();
  });

  it("turns TRL's completion parquet files and log history into labelled rollouts and metric series of a branch", async () => {
    // A TRL output dir in TRL's formats (see writeTrlRunDir): step 2 logs step 1's generation batch again.
    const trl = join(dir, "trl");
    writeTrlRunDir(trl);
    const layout = await trlRunLayout(trl);
    expect(layout).toEqual({ completionsDir: join(trl, "completions"), trainerStateFile: join(trl, "checkpoint-3", "trainer_state.json") });
    const { steps, metrics } = await readTrlRun(layout, { rewardWeights: { accuracy_reward: 1, format_reward: 0 } });
    expect(steps.map((s) => s.duplicates)).toEqual([0, 4, 0]);
    const out = join(dir, "contract");
    const files: { file: string; source: string }[] = [];
    for (const { step, rollouts } of steps) {
      if (rollouts.length === 0) continue;
      const file = paths(out).rolloutsFile("train", step);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, rollouts.map((r) => JSON.stringify(r)).join("\n") + "\n");
      files.push({ file, source: `rollouts/train/step_${step}.jsonl` });
    }

    const config = runConfigSchema.parse({ ...(parse(readFileSync("examples/gym-math.yaml", "utf8")) as object), name: "trl-import" });
    const org = await db.organization.create({ data: { name: "trl-import", slug: `trl-import-${process.pid}` } });
    const { runId, baseBranchId: branchId } = await createRun(db, config, { organizationId: org.id });
    const stored = await loadHarnessVersion(db, (await db.run.findUniqueOrThrow({ where: { id: runId } })).harnessVersionId!);
    const compiled = compileHarness(stored.definition);
    if (!compiled.ok) throw new Error("the math harness does not compile");
    const job = await db.job.create({ data: { branchId, kind: "train", executor: "local", adapter: "trl", state: "succeeded", externalId: `import:${dir}`, message: "imported" } });
    const labeler = harnessLabeler(compiled.harness, stored.detectorRowIds, "math", config.recipe.algo.maxResponseTokens);
    const ingestAll = async () => {
      let inserted = 0;
      for (const { file, source } of files) {
        inserted += (await ingestRolloutFile(pool, { owner: { runId, branchId, jobId: job.id }, file, source, keepText: () => true, labeler })).inserted;
      }
      return inserted;
    };
    expect(await ingestAll()).toBe(8);

    for (const line of metrics) {
      await db.metricPoint.createMany({
        data: Object.entries(line.data).flatMap(([key, value]) => (value === null ? [] : [{ branchId, step: line.step, name: `trainer/${key}`, value }])),
      });
    }

    // TRL's table holds no ground truth, so the answerless completions are labelled format_error (not wrong_answer).
    expect(await db.rolloutLabel.count({ where: { branchId, label: "format_error" } })).toBe(4);
    expect(await db.rolloutLabel.count({ where: { branchId, label: { not: "format_error" } } })).toBe(0);
    const group = await db.rollout.findMany({ where: { branchId, step: 1 }, orderBy: { sample: "asc" } });
    expect(group.map((r) => [r.sample, r.reward])).toEqual([[0, 1], [1, 0], [2, 1], [3, 0]]);
    expect(new Set(group.map((r) => r.groupId)).size).toBe(1);

    const series = async (name: string) => (await db.metricPoint.findMany({ where: { branchId, name }, orderBy: { step: "asc" } })).map((p) => [p.step, p.value]);
    expect(await series("trainer/entropy")).toEqual([[1, 0.9], [2, 0.8], [3, 0.7]]);
    expect(await series("trainer/clip_fraction")).toEqual([[1, 0.02], [2, 0.02], [3, 0.02]]);

    expect(await ingestAll()).toBe(0);
  }, 60_000);
});
