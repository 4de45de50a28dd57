import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { verlAdapter } from "@evotrainer/adapters";
import { jobSchema, readCheckpoint, readEval, readStatus, rolloutSchema, type Job } from "@evotrainer/contract";
import { defaultRecipe, parseTrainerSettings } from "@evotrainer/core";
import { createDatabase, type RunReport } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { RuleBasedProposer } from "@evotrainer/proposers";
import { loadWorkerEnv } from "../../apps/worker/src/env.ts";
import { startWorkerApp } from "../../apps/worker/src/worker-app.ts";
import { runCli } from "../support/cli.ts";
import { buildTinyArithmeticModel, buildTinyModel, TRL_PYTHON, trlUnavailable, writeArithmeticTasks } from "../support/real-trainers.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";

// A database of its own, as every file that starts a worker has: see worker-isolation.test.ts.
const database = await createTestDatabase(inject("databaseUrl"));
const databaseUrl = database.url;
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const unavailable = trlUnavailable();
// Never a silent skip: the reason is printed where CI logs show it.
if (unavailable) console.error(`\nREAL-TRAINER TESTS NOT RUN: ${unavailable}\n`);

const dir = mkdtempSync(join(tmpdir(), "evo-real-trl-"));
const jobsDir = join(dir, "jobs");
const cli = (args: string[]) => runCli(args, { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix });
const jobFile = (jobId: string, name: string) => JSON.parse(readFileSync(join(jobsDir, jobId, name), "utf8")) as Record<string, any>;

describe.skipIf(unavailable !== null)("a run of the loop on real TRL (CPU torch, a tiny model built here, adapter: trl, executor: local)", () => {
  afterAll(async () => {
    await deleteKeys(redisUrl, `${prefix}:*`);
    await database.drop();
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  it("ingests TRL's rollouts with token counts, judges children, starts them from the parent's model, and scores the sealed split without training", async () => {
    // The learning benchmark's SFT model at its smallest (bench:learning's smoke size), with its own
    // task splits: the pieces are checked here, what RL makes of them is the benchmark's.
    const tiny = buildTinyArithmeticModel("smoke");
    const example = parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, any>;
    const split = (name: "promotion" | "sealed") => ({ dataset: tiny[name], samplesPerTask: 2, temperature: 0.7, maxResponseTokens: 8, grader: "math" });
    const config = {
      ...example,
      name: "real-trl",
      basePolicy: tiny.model,
      recipe: { ...example.recipe, algo: { ...example.recipe.algo, groupSize: 4, maxResponseTokens: 8, lr: 1e-3 } },
      evaluation: { promotion: split("promotion"), sealed: split("sealed"), seed: 7 },
      search: { proposals: 4, keep: 3, stepsPerBranch: 2, proposer: "rule" },
      budget: { gpuSeconds: 3_000, branches: 4, rounds: 1 },
      adapter: "trl",
      executor: "local",
      resources: { gpusPerJob: 0 },
      trainer: { python: TRL_PYTHON, dataset: tiny.train, args: { per_device_train_batch_size: 4 } },
    };
    const configFile = join(dir, "real-trl.yaml");
    writeFileSync(configFile, JSON.stringify(config, null, 2));

    const env = loadWorkerEnv({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_JOBS_DIR: jobsDir, EVO_MONITOR_EVERY_MS: "500", EVO_RECONCILE_EVERY_MS: "5000" });
    const worker = await startWorkerApp(env, (lockedEvaluation) => new RuleBasedProposer({ lockedEvaluation }), (line) => console.log(`[worker] ${line}`));
    const started = Date.now();
    let result: Awaited<ReturnType<typeof cli>>;
    try {
      result = await cli(["run", configFile, "--wait", "--json"]);
    } finally {
      await worker.shutdown();
    }
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as RunReport;
    console.log(
      `real TRL run: ${((Date.now() - started) / 1000).toFixed(0)} s\n` +
        report.branches.map((b) => `v${b.version} ${b.kind} ${b.status} ${b.factor ?? "base"} score=${b.promotionScore} verdict=${b.verdict ? (b.verdict.promoted ? "promote" : "reject") : "none"}`).join("\n") +
        `\nsealed: ${report.sealed?.score}`,
    );
    expect(report.status).toBe("completed");

    const db = createDatabase(databaseUrl);
    try {
      const base = report.branches.find((b) => b.version === 0)!;
      const children = report.branches.filter((b) => b.parentId === base.id && b.kind === "candidate");
      const controls = report.branches.filter((b) => b.parentId === base.id && b.kind === "control");
      expect(children.length).toBeGreaterThanOrEqual(1);
      // The run's first round measures the base's seed noise: search.newParentControlReplicates (3).
      expect(controls.length).toBe(3);

      // Rollouts: TRL's generation batches with their real token counts; completions TRL clipped at the limit are truncated.
      const trainRows = await db.rollout.findMany({ where: { branchId: base.id, split: "train" } });
      expect(trainRows.length).toBe(2 * 4);
      expect(trainRows.every((r) => r.responseTokens > 0 && r.responseTokens <= 8)).toBe(true);
      expect(trainRows.every((r) => (r.finishReason === "length") === r.truncated)).toBe(true);
      const evalRows = await db.rollout.count({ where: { branchId: base.id, split: "promotion" } });
      const promotionTasks = readFileSync(tiny.promotion, "utf8").trim().split("\n").length;
      expect(evalRows).toBe(promotionTasks * 2);
      // TRL's logged metrics, one line per step, under the names health rules read.
      const entropy = await db.metricPoint.findMany({ where: { branchId: base.id, name: "trainer/entropy" }, orderBy: { step: "asc" } });
      expect(entropy.map((p) => p.step)).toEqual([1, 2]);

      // Every candidate was judged on the promotion split against its round's controls (the parent's recipe, trained as long).
      for (const child of children) {
        expect(child.promotionScore, `v${child.version}`).not.toBeNull();
        expect(child.verdict?.checks.find((c) => c.name === "main_score_vs_control")?.detail, `v${child.version}`).toMatch(/^vs the control \(3 replicate\(s\)/);
      }

      // The children start from the parent's saved model, not from the base model.
      const baseBranch = await db.branch.findUniqueOrThrow({ where: { id: base.id } });
      const parentModel = (baseBranch.checkpoint as { path: string }).path;
      expect(existsSync(join(parentModel, "config.json"))).toBe(true);
      const trainJobs = await db.job.findMany({ where: { branch: { runId: report.runId }, kind: "train", state: "succeeded" }, include: { branch: true } });
      // Controls start from the same checkpoint as the candidates they are compared with.
      const childJobs = trainJobs.filter((j) => j.branch.parentId === base.id);
      expect(childJobs.length).toBe(children.length + controls.length);
      for (const job of childJobs) {
        expect(jobFile(job.id, "job.json").policy.checkpoint).toBe(parentModel);
        expect(jobFile(job.id, "trl-grpo.yaml").model_name_or_path).toBe(parentModel);
      }

      // A reward-weight intervention reaches TRL: its rendered reward_weights differ from the parent's.
      const baseJob = trainJobs.find((j) => j.branchId === base.id)!;
      const weighted = children.find((c) => /^reward\.components\.\w+\.weight$/.test(c.factor ?? ""));
      expect(weighted, `factors tried: ${children.map((c) => c.factor).join(", ")}`).toBeDefined();
      const weightedJob = childJobs.find((j) => j.branchId === weighted!.id)!;
      expect(jobFile(baseJob.id, "trl-grpo.yaml").reward_weights).toEqual([1, 0]);
      expect(jobFile(weightedJob.id, "trl-grpo.yaml").reward_weights).not.toEqual([1, 0]);

      // The larger group still fits TRL's generation batch, and every job trained on the CPU.
      const grouped = children.find((c) => c.factor === "algo.groupSize");
      if (grouped) {
        const args = jobFile(childJobs.find((j) => j.branchId === grouped.id)!.id, "trl-grpo.yaml");
        expect(args.generation_batch_size % args.num_generations).toBe(0);
        expect(args.generation_batch_size % args.per_device_train_batch_size).toBe(0);
      }
      for (const job of trainJobs) expect(jobFile(job.id, "trl-grpo.yaml").use_cpu).toBe(true);

      // No factor TRL refuses was tried, and no job failed for one.
      expect(children.map((c) => c.factor)).not.toContain("data.dynamicSampling");
      expect(await db.job.count({ where: { branch: { runId: report.runId }, state: "failed" } })).toBe(0);

      // The sealed score comes from an eval-only job: the best branch's model, evaluated, never trained.
      expect(report.sealed?.score).toEqual(expect.any(Number));
      const sealedJob = await db.job.findFirstOrThrow({ where: { branch: { runId: report.runId }, kind: "eval" } });
      expect(sealedJob.state).toBe("succeeded");
      const sealedSpec = jobFile(sealedJob.id, "job.json");
      expect(sealedSpec).toMatchObject({ kind: "eval", evalSplits: ["sealed"] });
      expect(existsSync(join(jobsDir, sealedJob.id, "output", "rollouts", "train"))).toBe(false);
      expect(readdirSync(join(jobsDir, sealedJob.id, "output", "rollouts", "eval"))).toEqual(["step_0.jsonl"]);
    } finally {
      await db.$disconnect();
    }
  }, 540_000);

  it("runs the verl job wrapper over verl-format outputs (verl needs a GPU): rollouts with token counts, eval per task, checkpoint, exit classes", async () => {
    writeArithmeticTasks(join(dir, "verl-tasks.jsonl"), "verl", 8);
    const model = buildTinyModel(join(dir, "verl"), join(dir, "verl-tasks.jsonl"));
    const split = { dataset: "/data/gsm8k/promotion.parquet", samplesPerTask: 4, temperature: 0.7, maxResponseTokens: 1024, grader: "math" };
    const recipe = { ...defaultRecipe(), algo: { ...defaultRecipe().algo, groupSize: 4, maxResponseTokens: 256 } };
    const verlJob = (name: string, kind: "train" | "eval"): { job: Job; workDir: string } => {
      const workDir = join(dir, name);
      mkdirSync(workDir, { recursive: true });
      const job = jobSchema.parse({
        contract: "evo.job/v1", runId: "run", branchId: "branch", jobId: name, kind, domain: "math",
        policy: { base: model, ...(kind === "eval" ? { checkpoint: join(dir, "verl-train", "output", "verl", "checkpoints", "global_step_2") } : {}) },
        recipe, evaluation: { promotion: split, sealed: { ...split, dataset: "/data/gsm8k/sealed.parquet" }, seed: 7 },
        evalSplits: kind === "train" ? ["promotion"] : ["sealed"],
        budget: { maxSeconds: 600, ...(kind === "train" ? { maxSteps: 2 } : {}), gpuCount: 1 }, seed: 1, outputDir: join(workDir, "output"),
        adapter: parseTrainerSettings("verl", { python: TRL_PYTHON, trainFiles: "/data/gsm8k/train.parquet" }),
      });
      return { job, workDir };
    };
    // verl's own command after the wrapper's `--`, with verl's entry point swapped for the writer of its formats.
    const run = (name: string, kind: "train" | "eval", env: Record<string, string> = {}) => {
      const { job, workDir } = verlJob(name, kind);
      const rendered = verlAdapter().render(job);
      for (const [file, text] of Object.entries(rendered.files)) writeFileSync(join(workDir, file), text);
      const separator = rendered.command.indexOf("--");
      expect(rendered.command.slice(separator + 1, separator + 4)).toEqual([TRL_PYTHON, "-m", "verl.trainer.main_ppo"]);
      const trainer = [TRL_PYTHON, join(process.cwd(), "tests/support/python/verl_format_trainer.py"), join(process.cwd(), "tests/fixtures/real/gsm8k-example-model-solutions.jsonl"), ...rendered.command.slice(separator + 4)];
      const done = spawnSync(rendered.command[0]!, [...rendered.command.slice(1, separator + 1), ...trainer], { cwd: workDir, env: { ...process.env, ...rendered.env, ...env }, encoding: "utf8" });
      return { code: done.status, output: `${done.stdout}${done.stderr}`, outputDir: job.outputDir };
    };

    const train = run("verl-train", "train");
    expect(train.code, train.output).toBe(0);
    const rows = (file: string) => readFileSync(file, "utf8").trim().split("\n").map((line) => rolloutSchema.parse(JSON.parse(line)));
    const step1 = rows(join(train.outputDir, "rollouts", "train", "step_1.jsonl"));
    expect(step1.length).toBe(2 * 4);
    expect(step1.every((r) => r.responseTokens > 0)).toBe(true);
    // GPT-3's long solutions run past the recipe's 256-token limit: truncated where the tokenizer says so.
    expect(step1.some((r) => r.truncated && r.finishReason === "length" && r.responseTokens >= 256)).toBe(true);
    expect(step1.some((r) => !r.truncated && r.finishReason === "stop" && r.responseTokens < 256)).toBe(true);
    expect(new Set(step1.map((r) => r.groupId)).size).toBe(2);
    const result = await readEval(train.outputDir, 2);
    expect(result?.splits.promotion?.tasks.length).toBe(4);
    expect(result?.splits.promotion?.tasks.every((t) => t.samples === 4)).toBe(true);
    expect(rows(join(train.outputDir, "rollouts", "eval", "step_2.jsonl")).every((r) => r.split === "promotion")).toBe(true);
    expect(await readCheckpoint(train.outputDir)).toMatchObject({ step: 2, path: "verl/checkpoints/global_step_2" });
    expect(await readStatus(train.outputDir)).toMatchObject({ state: "succeeded", exitCode: 0, lastStep: 2 });
    expect(readFileSync(join(train.outputDir, "metrics.jsonl"), "utf8").trim().split("\n")).toHaveLength(2);

    // An eval job: verl's validation alone (val_only) on the sealed split, from the branch's checkpoint.
    const sealed = run("verl-sealed", "eval");
    expect(sealed.code, sealed.output).toBe(0);
    expect((await readEval(sealed.outputDir, 0))?.splits.sealed?.tasks.length).toBe(4);
    expect(existsSync(join(sealed.outputDir, "rollouts", "train"))).toBe(false);

    // A configuration verl refuses exits 2 (config_error, never retried), with verl's message.
    const refused = run("verl-refused", "train", { VERL_FORMAT_FAIL: "config" });
    expect(refused.code).toBe(2);
    expect(await readStatus(refused.outputDir)).toMatchObject({ state: "failed", exitCode: 2, failureClass: "config_error", message: expect.stringContaining("ConfigAttributeError") });
  }, 120_000);
});
