import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse, stringify } from "yaml";
import { runConfigSchema } from "@evotrainer/core";
import { createDatabase, createRun } from "@evotrainer/db";
import { writeTrlRunDir } from "../support/trl-run-dir.ts";
import { writeVerlRunDir } from "../support/verl-run-dir.ts";
import { CLI } from "../support/cli.ts";

const databaseUrl = inject("databaseUrl");
const db = createDatabase(databaseUrl);
const dir = mkdtempSync(join(tmpdir(), "evo-cli-import-"));

const cli = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, DATABASE_URL: databaseUrl }, encoding: "utf8" });

/** `evotrainer import … --json`, which must succeed; its JSON report. */
const importJson = (...args: string[]) => {
  const result = cli("import", ...args, "--json");
  expect(result.status, result.stderr).toBe(0);
  return { report: JSON.parse(result.stdout) as Record<string, unknown>, stderr: result.stderr };
};

const mathConfig = (changes: Record<string, unknown>) => ({ ...(parse(readFileSync("examples/gym-math.yaml", "utf8")) as object), ...changes });

const series = async (branchId: string, name: string) =>
  (await db.metricPoint.findMany({ where: { branchId, name }, orderBy: { step: "asc" } })).map((p) => [p.step, p.value]);

describe("evotrainer import", () => {
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    await db.$disconnect();
  });

  it("imports a verl run directory into a new run's base branch, quarantines bad lines at their place, and adds nothing the second time", async () => {
    const verl = join(dir, "verl-run");
    writeVerlRunDir(verl);
    const configFile = join(dir, "verl-run.yaml");
    writeFileSync(configFile, stringify(mathConfig({ name: `cli-import-verl-${process.pid}`, adapter: "verl" })));

    const { report, stderr } = importJson("verl", verl, "--config", configFile);
    expect(report).toMatchObject({
      adapter: "verl",
      dir: verl,
      branchVersion: 0,
      created: true,
      found: { rolloutDataDir: join(verl, "rollouts"), validationDataDir: join(verl, "validation"), metricsFile: join(verl, "metrics.jsonl"), rewardComponentsFile: join(verl, "reward_components.jsonl") },
      rollouts: { added: 14, alreadyPresent: 0, quarantined: 2, repeatedRows: 0 },
      // Per step: the four logged metrics and the entropy and kl short names; step 2's NaN grad_norm is left out.
      metricPoints: { added: 17, changed: 0, steps: 3 },
      labels: { format_error: 3, wrong_answer: 7 },
      quarantined: [
        { file: join(verl, "rollouts", "1.jsonl"), line: 5, reason: expect.stringMatching(/^invalid JSON/) },
        { file: join(verl, "rollouts", "2.jsonl"), line: 5, reason: expect.stringMatching(/^reward/) },
      ],
    });
    // Progress goes to stderr, one line per file read.
    expect(stderr).toContain(`import verl: reading ${verl}`);
    expect(stderr).toMatch(/import verl: \[1\/4\] rollouts\/1\.jsonl: 100%/);
    expect(stderr).toMatch(/import verl: \[4\/4\] validation\/3\.jsonl/);

    const { runId, branchId } = report as { runId: string; branchId: string };
    const branch = await db.branch.findUniqueOrThrow({ where: { id: branchId }, include: { run: true, jobs: true } });
    expect(branch).toMatchObject({ runId, parentId: null, status: "awaiting_decision" });
    expect(branch.jobs).toMatchObject([{ adapter: "verl", state: "succeeded", externalId: `import:verl:${verl}` }]);
    expect(await db.rollout.count({ where: { branchId, split: "train" } })).toBe(12);
    expect(await db.rollout.count({ where: { branchId, split: "promotion" } })).toBe(2);
    const group = await db.rollout.findMany({ where: { branchId, split: "train", step: 2 }, orderBy: { sample: "asc" } });
    expect(group.map((r) => [r.reward, r.rewardComponents])).toEqual([
      [1, { correctness: 1, format: 1 }], [0, { correctness: 0, format: 1 }], [0, { correctness: 0, format: 0 }], [1, { correctness: 1, format: 1 }],
    ]);
    expect(await series(branchId, "trainer/actor/entropy")).toEqual([[1, 0.9], [2, 0.8], [3, 0.7]]);
    expect(await series(branchId, "trainer/kl")).toEqual([[1, 0.001], [2, 0.002], [3, 0.003]]);
    expect(await series(branchId, "trainer/actor/grad_norm")).toEqual([[1, 0.5], [3, 0.5]]);
    // Import computes the step aggregates the charts read, as the worker's ingest does.
    expect((await series(branchId, "train/rollouts")).map(([step]) => step)).toEqual([1, 2, 3]);
    expect(await series(branchId, "train/reward_mean")).toContainEqual([2, 0.5]);
    expect(await series(branchId, "train/dead_group_ratio")).toHaveLength(3);

    const again = importJson("verl", verl, "--config", configFile).report;
    expect(again).toMatchObject({ runId, branchId, created: false, rollouts: { added: 0, alreadyPresent: 0, quarantined: 0 }, metricPoints: { added: 0, changed: 0 }, labels: report.labels });
    expect(await db.run.count({ where: { name: `cli-import-verl-${process.pid}` } })).toBe(1);
    expect(await db.rollout.count({ where: { runId } })).toBe(14);
    expect(await db.quarantinedLine.count({ where: { runId } })).toBe(2);

    // Without --json: a summary, and each quarantined line at its file and line.
    const text = cli("import", "verl", verl, "--config", configFile);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toContain("import verl: 0 rollouts added, 0 already present, 0 lines quarantined; 0 metric points added, 0 changed");
    expect(text.stdout).toContain(`${join(verl, "rollouts", "1.jsonl")}:5: invalid JSON`);
    expect(text.stdout).toMatch(/rollouts\/2\.jsonl:5: reward/);
    expect(text.stdout).toContain(`evotrainer decide ${branchId} approve`);

    // The same directory under another config is refused, never silently landed in the old run.
    const otherConfig = join(dir, "verl-run-other.yaml");
    writeFileSync(otherConfig, stringify(mathConfig({ name: `cli-import-verl-other-${process.pid}`, adapter: "verl" })));
    const refused = cli("import", "verl", verl, "--config", otherConfig);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`was imported before into run ${runId} under another run config`);
    expect(refused.stderr).toContain(`--run ${runId}`);
    expect(await db.run.count({ where: { name: `cli-import-verl-other-${process.pid}` } })).toBe(0);
  }, 90_000);

  it("an import stopped part-way keeps what it stored, says how to resume, and the same command resumes without adding anything twice", async () => {
    const verl = join(dir, "verl-halted");
    writeVerlRunDir(verl);
    const name = `cli-import-halted-${process.pid}`;
    const configFile = join(dir, "verl-halted.yaml");
    writeFileSync(configFile, stringify(mathConfig({ name, adapter: "verl" })));
    // The database refuses this run's trainer metrics, which are stored after every rollout file:
    // the import fails after its rollouts are in. Other runs in this database are untouched.
    await db.$executeRawUnsafe(`
      CREATE FUNCTION halt_import() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.name LIKE 'trainer/%' AND EXISTS (SELECT 1 FROM "Branch" b JOIN "Run" r ON r.id = b."runId" WHERE b.id = NEW."branchId" AND r.name = '${name}') THEN
          RAISE EXCEPTION 'metric store unavailable';
        END IF;
        RETURN NEW;
      END $$`);
    await db.$executeRawUnsafe(`CREATE TRIGGER halt_import BEFORE INSERT OR UPDATE ON "MetricPoint" FOR EACH ROW EXECUTE FUNCTION halt_import()`);
    let halted;
    try {
      halted = cli("import", "verl", verl, "--config", configFile);
    } finally {
      await db.$executeRawUnsafe(`DROP TRIGGER halt_import ON "MetricPoint"`);
      await db.$executeRawUnsafe(`DROP FUNCTION halt_import()`);
    }
    expect(halted.status).toBe(1);
    const run = await db.run.findFirstOrThrow({ where: { name }, include: { branches: true } });
    const [branch] = run.branches;
    expect(run.branches).toHaveLength(1);
    expect(halted.stderr).toContain("metric store unavailable");
    expect(halted.stderr).toContain(`the import stopped part-way: what it stored so far is kept in branch ${branch!.id} of run ${run.id}`);
    expect(halted.stderr).toContain("run the same command again to resume where it stopped (nothing is added twice)");
    expect(await db.rollout.count({ where: { branchId: branch!.id } })).toBe(14);
    expect(await series(branch!.id, "trainer/kl")).toEqual([]);

    const { report } = importJson("verl", verl, "--config", configFile);
    expect(report).toMatchObject({ runId: run.id, branchId: branch!.id, created: false, rollouts: { added: 0, alreadyPresent: 0, quarantined: 0 } });
    expect(await series(branch!.id, "trainer/kl")).toEqual([[1, 0.001], [2, 0.002], [3, 0.003]]);
    expect(await db.run.count({ where: { name } })).toBe(1);
    expect(await db.rollout.count({ where: { runId: run.id } })).toBe(14);
    expect(await db.quarantinedLine.count({ where: { runId: run.id } })).toBe(2);
  }, 90_000);

  it("imports a TRL output directory as a new base branch of an existing run, once", async () => {
    const trl = join(dir, "trl-run");
    writeTrlRunDir(trl);
    const config = runConfigSchema.parse(mathConfig({ name: "cli-import-trl", adapter: "trl" }));
    const org = await db.organization.create({ data: { name: "cli-import", slug: `cli-import-${process.pid}` } });
    const { runId, baseBranchId } = await createRun(db, config, { organizationId: org.id });

    const args = ["trl", trl, "--run", runId, "--reward-weights", "accuracy_reward=1,format_reward=0"];
    const { report } = importJson(...args);
    expect(report).toMatchObject({
      runId,
      branchVersion: 1,
      created: true,
      found: { completionsDir: join(trl, "completions"), trainerStateFile: join(trl, "checkpoint-3", "trainer_state.json") },
      // Step 2's file logs step 1's generation batch again: its rows are not rollouts of their own.
      rollouts: { added: 8, alreadyPresent: 0, quarantined: 0, repeatedRows: 4 },
      // epoch, loss, reward, kl, entropy, clip_ratio/region_mean and the clip_fraction short name, per step.
      metricPoints: { added: 21, changed: 0, steps: 3 },
      // TRL's table holds no ground truth, so the answerless completions are format errors, not wrong answers.
      labels: { format_error: 4 },
      quarantined: [],
    });
    const branchId = report.branchId as string;
    expect(branchId).not.toBe(baseBranchId);
    expect(await db.branch.findUniqueOrThrow({ where: { id: branchId } })).toMatchObject({ runId, parentId: null, version: 1, status: "awaiting_decision" });
    const group = await db.rollout.findMany({ where: { branchId, step: 1 }, orderBy: { sample: "asc" } });
    expect(group.map((r) => [r.sample, r.reward])).toEqual([[0, 1], [1, 0], [2, 1], [3, 0]]);
    expect(group[0]!.rewardComponents).toEqual({ accuracy_reward: 1, format_reward: 1 });
    expect(await series(branchId, "trainer/clip_fraction")).toEqual([[1, 0.02], [2, 0.02], [3, 0.02]]);
    expect(await series(branchId, "trainer/grad_norm")).toEqual([]);

    expect(importJson(...args).report).toMatchObject({ branchId, created: false, rollouts: { added: 0, quarantined: 0 }, metricPoints: { added: 0, changed: 0 } });
    expect(await db.branch.count({ where: { runId } })).toBe(2);
    expect(await db.rollout.count({ where: { branchId } })).toBe(8);
  }, 90_000);

  it("says what is wrong: a missing directory, a directory of neither layout, where the run lands, the config's adapter", () => {
    const empty = join(dir, "empty");
    mkdirSync(empty);
    const verl = join(dir, "verl-errors");
    writeVerlRunDir(verl);
    const gymConfig = join(dir, "gym.yaml");
    writeFileSync(gymConfig, stringify(mathConfig({ name: "cli-import-gym" })));
    const failures: [string[], RegExp][] = [
      [["verl", join(dir, "nope"), "--config", gymConfig], /nope: no such directory/],
      [["verl", empty, "--run", "r1"], /is not a verl run directory: expected verl's \{step\}\.jsonl dumps \(trainer\.rollout_data_dir\) in .*empty\/rollouts\//],
      [["trl", verl, "--run", "r1"], /is not a TRL GRPO output directory: expected completions_\{step:05d\}\.parquet files .*verl-errors\/completions\//],
      [["verl", verl], /say where the run lands: --run <runId>/],
      [["verl", verl, "--config", gymConfig], /the run config says adapter: gym; a run for an imported verl run needs adapter: verl/],
      [["verl", verl, "--run", "no-such-run"], /no run with id no-such-run/],
      [["jax", verl, "--run", "r1"], /the trainer is verl or trl\nusage: evotrainer import verl\|trl/],
    ];
    for (const [args, message] of failures) {
      const result = cli("import", ...args);
      expect(result.status, `${args.join(" ")}: ${result.stdout}`).toBe(1);
      expect(result.stderr, args.join(" ")).toMatch(message);
    }
  }, 90_000);
});
