import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { readVerlRun, verlRunLayout } from "@evotrainer/adapters";
import { paths } from "@evotrainer/contract";
import { compileHarness, runConfigSchema } from "@evotrainer/core";
import { createDatabase, createRun, loadHarnessVersion } from "@evotrainer/db";
import { harnessLabeler, ingestRolloutFile } from "@evotrainer/db/ingest";
import { writeVerlRunDir } from "../support/verl-run-dir.ts";

const databaseUrl = inject("databaseUrl");
const db = createDatabase(databaseUrl);
const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
const dir = mkdtempSync(join(tmpdir(), "evo-verl-import-"));

const write = (file: string, text: string) => {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
};

describe("importing a verl run", () => {
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    await pool.end();
    await db.$disconnect();
  });

  it("turns verl's dumps and file-logger metrics into labelled rollouts and metric series of a branch", async () => {
    // A verl run directory in verl's formats (see writeVerlRunDir), with the reward wrapper's side file.
    const verl = join(dir, "verl-run");
    writeVerlRunDir(verl);

    // Convert to the contract's files, as the importer and the verl executor do.
    const layout = await verlRunLayout(verl);
    expect(layout).toEqual({
      rolloutDataDir: join(verl, "rollouts"), validationDataDir: join(verl, "validation"), metricsFile: join(verl, "metrics.jsonl"), rewardComponentsFile: join(verl, "reward_components.jsonl"),
    });
    const run = await readVerlRun(layout);
    // The line cut short is reported with its place; the importer quarantines it.
    expect(run.rollouts.flatMap((s) => s.unreadable.map((u) => [s.file, u.lineNumber]))).toEqual([[join(verl, "rollouts", "1.jsonl"), 5]]);
    const out = join(dir, "contract");
    const files: { file: string; source: string }[] = [];
    for (const { split, step, rollouts } of run.rollouts) {
      const file = paths(out).rolloutsFile(split === "train" ? "train" : "eval", step);
      write(file, rollouts.map((r) => JSON.stringify(r)).join("\n") + "\n");
      files.push({ file, source: `rollouts/${split === "train" ? "train" : "eval"}/step_${step}.jsonl` });
    }

    const config = runConfigSchema.parse({ ...(parse(readFileSync("examples/gym-math.yaml", "utf8")) as object), name: "verl-import" });
    const org = await db.organization.create({ data: { name: "verl-import", slug: `verl-import-${process.pid}` } });
    const { runId, baseBranchId: branchId } = await createRun(db, config, { organizationId: org.id });
    const stored = await loadHarnessVersion(db, (await db.run.findUniqueOrThrow({ where: { id: runId } })).harnessVersionId!);
    const compiled = compileHarness(stored.definition);
    if (!compiled.ok) throw new Error("the math harness does not compile");
    const job = await db.job.create({ data: { branchId, kind: "train", executor: "local", adapter: "verl", state: "succeeded", externalId: `import:${verl}`, message: "imported" } });
    const labeler = harnessLabeler(compiled.harness, stored.detectorRowIds, "math", config.recipe.algo.maxResponseTokens);
    const ingestAll = async () => {
      let inserted = 0;
      let quarantined = 0;
      for (const { file, source } of files) {
        const result = await ingestRolloutFile(pool, { owner: { runId, branchId, jobId: job.id }, file, source, keepText: () => true, labeler });
        inserted += result.inserted;
        quarantined += result.quarantined;
      }
      return { inserted, quarantined };
    };
    // The NaN-score line verl wrote is quarantined with its reason, not guessed at.
    expect(await ingestAll()).toEqual({ inserted: 14, quarantined: 1 });
    const [bad] = await db.quarantinedLine.findMany({ where: { source: "rollouts/train/step_2.jsonl" } });
    expect(bad?.reason).toMatch(/reward/);

    // MetricPoints named trainer/<key>, as the worker's ingest writes them.
    for (const line of run.metrics) {
      for (const [key, value] of Object.entries(line.data)) {
        if (value === null) continue;
        await db.metricPoint.upsert({
          where: { branchId_name_step: { branchId, name: `trainer/${key}`, step: line.step } },
          update: { value },
          create: { branchId, step: line.step, name: `trainer/${key}`, value },
        });
      }
    }

    const count = (split: "train" | "promotion", label: string) => db.rolloutLabel.count({ where: { branchId, split, label } });
    expect(await db.rollout.count({ where: { branchId, split: "train" } })).toBe(12);
    expect(await db.rollout.count({ where: { branchId, split: "promotion" } })).toBe(2);
    expect(await count("train", "wrong_answer")).toBe(6); // the #### 26 and the answerless one, each step
    expect(await count("train", "format_error")).toBe(3);
    expect(await count("promotion", "wrong_answer")).toBe(1);
    expect(await db.rolloutLabel.count({ where: { branchId, label: { notIn: ["wrong_answer", "format_error"] } } })).toBe(0);
    const group = await db.rollout.findMany({ where: { branchId, split: "train", step: 2 }, orderBy: { sample: "asc" } });
    expect(group.map((r) => r.sample)).toEqual([0, 1, 2, 3]);
    expect(new Set(group.map((r) => r.groupId)).size).toBe(1);
    expect(group.map((r) => r.reward)).toEqual([1, 0, 0, 1]);
    // The training dumps hold only the score; the components come from the reward wrapper's side file.
    expect(group.map((r) => r.rewardComponents)).toEqual([
      { correctness: 1, format: 1 }, { correctness: 0, format: 1 }, { correctness: 0, format: 0 }, { correctness: 1, format: 1 },
    ]);

    const series = async (name: string) =>
      (await db.metricPoint.findMany({ where: { branchId, name }, orderBy: { step: "asc" } })).map((p) => [p.step, p.value]);
    expect(await series("trainer/actor/entropy")).toEqual([[1, 0.9], [2, 0.8], [3, 0.7]]);
    expect(await series("trainer/entropy")).toEqual([[1, 0.9], [2, 0.8], [3, 0.7]]);
    expect(await series("trainer/kl")).toEqual([[1, 0.001], [2, 0.002], [3, 0.003]]);
    expect(await series("trainer/actor/grad_norm")).toEqual([[1, 0.5], [3, 0.5]]);

    // Importing the same run again adds nothing: uids are stable.
    expect(await ingestAll()).toEqual({ inserted: 0, quarantined: 0 });
  }, 60_000);
});
