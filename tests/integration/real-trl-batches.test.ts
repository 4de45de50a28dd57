import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { createDatabase, type RunReport } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { loadWorkerEnv } from "../../apps/worker/src/env.ts";
import { startWorkerApp } from "../../apps/worker/src/worker-app.ts";
import { runCli } from "../support/cli.ts";
import { buildTinyModel, TRL_PYTHON, trlUnavailable, writeArithmeticTasks } from "../support/real-trainers.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";

const database = await createTestDatabase(inject("databaseUrl"));
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const unavailable = trlUnavailable();
if (unavailable) console.error(`\nREAL-TRAINER TESTS NOT RUN: ${unavailable}\n`);

const dir = mkdtempSync(join(tmpdir(), "evo-real-trl-batches-"));
const jobsDir = join(dir, "jobs");
const cli = (args: string[]) => runCli(args, { DATABASE_URL: database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix });

/** How many tokens TRL counts for each task's prompt: the model's tokenizer over the prompt text, as GRPOTrainer tokenizes it. */
function promptTokens(model: string, tasksFile: string): Map<string, number> {
  const script = [
    "import json, sys",
    "from transformers import AutoTokenizer",
    "tok = AutoTokenizer.from_pretrained(sys.argv[1])",
    "for line in open(sys.argv[2]):",
    "    t = json.loads(line)",
    "    print(json.dumps([t['task_id'], len(tok(text=t['prompt'])['input_ids'])]))",
  ].join("\n");
  const done = spawnSync(TRL_PYTHON, ["-c", script, model, tasksFile], { encoding: "utf8" });
  if (done.status !== 0) throw new Error(done.stderr);
  return new Map(done.stdout.trim().split("\n").map((line) => JSON.parse(line) as [string, number]));
}

function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

describe.skipIf(unavailable !== null)("every completion real TRL generates reaches the database once (CPU torch, a tiny model built here)", () => {
  afterAll(async () => {
    await deleteKeys(redisUrl, `${prefix}:*`);
    await database.drop();
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  // TRL counts every prompt and completion token it generates in `num_tokens` (state.num_input_tokens_seen):
  // the stored rows must add up to exactly that, so no generation is lost, doubled or replaced by a later one.
  it.each([
    // examples/trl-math.yaml's shape: GA 4; a group (4) larger than the micro-batch (2). One generation per optimizer step.
    ["GA 4, group 4 > micro-batch 2", { per_device_train_batch_size: 2, gradient_accumulation_steps: 4 }, 4, 3],
    // A generation asked smaller than an optimizer step: TRL generates twice per step, each generation its own rows.
    ["GA 4, steps_per_generation 2", { per_device_train_batch_size: 2, gradient_accumulation_steps: 4, steps_per_generation: 2 }, 4, 3],
    // A group larger than an optimizer step's batch: one generation feeds two steps, so only odd steps have rollouts.
    ["GA 2, group 8 > step batch 4", { per_device_train_batch_size: 2, gradient_accumulation_steps: 2 }, 8, 4],
    // Each generation trained on twice (GRPO's μ): one generation feeds two optimizer steps.
    ["GA 2, num_iterations 2", { per_device_train_batch_size: 2, gradient_accumulation_steps: 2, num_iterations: 2 }, 4, 4],
  ] as const)("%s", async (name, args, groupSize, steps) => {
    const runDir = join(dir, name.replace(/\W+/g, "-"));
    const tasksFile = join(dir, "train.jsonl");
    writeArithmeticTasks(tasksFile, "train", 16);
    writeArithmeticTasks(join(dir, "eval.jsonl"), "eval", 2, 30);
    const model = buildTinyModel(runDir, tasksFile);
    const example = parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, any>;
    const split = { dataset: join(dir, "eval.jsonl"), samplesPerTask: 1, temperature: 0, maxResponseTokens: 4, grader: "math" };
    const config = {
      ...example,
      name: `trl-batches-${name}`,
      basePolicy: model,
      recipe: { ...example.recipe, algo: { ...example.recipe.algo, groupSize, maxResponseTokens: 6, lr: 1e-3 } },
      evaluation: { promotion: split, sealed: split, seed: 7 },
      search: { proposals: 1, keep: 1, stepsPerBranch: steps, proposer: "rule" },
      budget: { gpuSeconds: 3_000, branches: 1, rounds: 1 },
      adapter: "trl",
      executor: "local",
      resources: { gpusPerJob: 0 },
      trainer: { python: TRL_PYTHON, dataset: tasksFile, args },
    };
    const configFile = join(runDir, "run.yaml");
    writeFileSync(configFile, JSON.stringify(config, null, 2));

    const env = loadWorkerEnv({ DATABASE_URL: database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_JOBS_DIR: jobsDir, EVO_MONITOR_EVERY_MS: "500", EVO_RECONCILE_EVERY_MS: "5000" });
    // Only the base branch's training is under test: a proposer with nothing to propose ends the run after it.
    const worker = await startWorkerApp(env, () => ({ name: "none", propose: async () => [] }), () => {});
    let result: Awaited<ReturnType<typeof cli>>;
    try {
      result = await cli(["run", configFile, "--wait", "--json"]);
    } finally {
      await worker.shutdown();
    }
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as RunReport;
    const base = report.branches.find((b) => b.version === 0)!;

    const db = createDatabase(database.url);
    try {
      const rows = await db.rollout.findMany({ where: { branchId: base.id, split: "train" }, select: { uid: true, step: true, taskId: true, groupId: true, responseTokens: true } });
      const numTokens = await db.metricPoint.findMany({ where: { branchId: base.id, name: "trainer/num_tokens" }, orderBy: { step: "asc" } });
      // TRL logs num_tokens at the steps it generated in (not at a step fed by the previous step's generation).
      expect(numTokens.at(-1)?.step).toBe(Math.max(...rows.map((r) => r.step)));
      const prompts = promptTokens(model, tasksFile);
      const stored = rows.reduce((sum, r) => sum + prompts.get(r.taskId)! + r.responseTokens, 0);
      expect(stored, `${rows.length} rows stored`).toBe(numTokens.at(-1)!.value);

      // Every group is whole: groupSize completions of one task.
      const groups = groupBy(rows, (r) => r.groupId);
      for (const [groupId, members] of groups) {
        expect(members.length, groupId).toBe(groupSize);
        expect(new Set(members.map((m) => m.taskId)).size, groupId).toBe(1);
      }
      // The generation batch TRL was given, and so the rows per step.
      const trlArgs = JSON.parse(readFileSync(join(jobsDir, (await db.job.findFirstOrThrow({ where: { branchId: base.id, kind: "train" } })).id, "trl-grpo.yaml"), "utf8")) as Record<string, number>;
      const perStep = groupBy(rows, (r) => r.step);
      const iterations = "num_iterations" in args ? args.num_iterations : 1;
      const generationsPerStep = (args.per_device_train_batch_size * args.gradient_accumulation_steps) / (trlArgs.generation_batch_size! * iterations);
      const stepsWithRows = generationsPerStep >= 1 ? Array.from({ length: steps }, (_, i) => i + 1) : Array.from({ length: steps }, (_, i) => i + 1).filter((s) => (s - 1) % (1 / generationsPerStep) === 0);
      expect([...perStep.keys()].sort((a, b) => a - b)).toEqual(stepsWithRows);
      for (const [step, members] of perStep) expect(members.length, `step ${step}`).toBe(trlArgs.generation_batch_size! * Math.max(1, generationsPerStep));
    } finally {
      await db.$disconnect();
    }
  }, 540_000);
});
