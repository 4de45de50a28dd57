import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { createDatabase, type RunReport } from "@evotrainer/db";
import { RuleBasedProposer } from "@evotrainer/proposers";
import { loadWorkerEnv } from "../../apps/worker/src/env.ts";
import { startWorkerApp } from "../../apps/worker/src/worker-app.ts";
import { runCli } from "../support/cli.ts";
import { buildTinyModel, TRL_PYTHON, trlUnavailable, writeArithmeticTasks } from "../support/real-trainers.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";

const databaseUrl = inject("databaseUrl");
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
    rmSync(dir, { recursive: true, force: true });
  });

  it("ingests TRL's rollouts with token counts, judges children, starts them from the parent's model, and scores the sealed split without training", async () => {
    for (const [split, n, offset] of [["train", 16, 0], ["promotion", 6, 20], ["sealed", 6, 40]] as const) {
      writeArithmeticTasks(join(dir, `${split}.jsonl`), split, n, offset);
    }
    const model = buildTinyModel(dir, join(dir, "train.jsonl"));
    const example = parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, any>;
    const split = (name: string) => ({ dataset: join(dir, `${name}.jsonl`), samplesPerTask: 2, temperature: 0.7, maxResponseTokens: 8, grader: "math" });
    const config = {
      ...example,
      name: "real-trl",
      basePolicy: model,
      recipe: { ...example.recipe, algo: { ...example.recipe.algo, groupSize: 4, maxResponseTokens: 8, lr: 1e-3 } },
      evaluation: { promotion: split("promotion"), sealed: split("sealed"), seed: 7 },
      search: { proposals: 4, keep: 3, stepsPerBranch: 2, proposer: "rule" },
      budget: { gpuSeconds: 3_000, branches: 4, rounds: 1 },
      adapter: "trl",
      executor: "local",
      resources: { gpusPerJob: 0 },
      trainer: { python: TRL_PYTHON, dataset: join(dir, "train.jsonl"), args: { per_device_train_batch_size: 4 } },
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
        report.branches.map((b) => `v${b.version} ${b.status} ${b.factor ?? "base"} score=${b.promotionScore} verdict=${b.verdict ? (b.verdict.promoted ? "promote" : "reject") : "none"}`).join("\n") +
        `\nsealed: ${report.sealed?.score}`,
    );
    expect(report.status).toBe("completed");

    const db = createDatabase(databaseUrl);
    try {
      const base = report.branches.find((b) => b.version === 0)!;
      const children = report.branches.filter((b) => b.parentId === base.id);
      expect(children.length).toBeGreaterThanOrEqual(1);

      // Rollouts: TRL's generation batches with their real token counts; completions TRL clipped at the limit are truncated.
      const trainRows = await db.rollout.findMany({ where: { branchId: base.id, split: "train" } });
      expect(trainRows.length).toBe(2 * 4);
      expect(trainRows.every((r) => r.responseTokens > 0 && r.responseTokens <= 8)).toBe(true);
      expect(trainRows.every((r) => (r.finishReason === "length") === r.truncated)).toBe(true);
      const evalRows = await db.rollout.count({ where: { branchId: base.id, split: "promotion" } });
      expect(evalRows).toBe(6 * 2);

      // Every child was judged on the promotion split against its parent.
      // TODO(promotions): once control arms land on main, assert the verdict names the control.
      for (const child of children) {
        expect(child.verdict, `v${child.version}`).not.toBeNull();
        expect(child.promotionScore, `v${child.version}`).not.toBeNull();
      }

      // The children start from the parent's saved model, not from the base model.
      const baseBranch = await db.branch.findUniqueOrThrow({ where: { id: base.id } });
      const parentModel = (baseBranch.checkpoint as { path: string }).path;
      expect(existsSync(join(parentModel, "config.json"))).toBe(true);
      const trainJobs = await db.job.findMany({ where: { branch: { runId: report.runId }, kind: "train", state: "succeeded" }, include: { branch: true } });
      const childJobs = trainJobs.filter((j) => j.branch.parentId === base.id);
      expect(childJobs.length).toBe(children.length);
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
});
