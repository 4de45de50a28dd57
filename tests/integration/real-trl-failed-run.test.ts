import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { createDatabase } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { loadWorkerEnv } from "../../apps/worker/src/env.ts";
import { startWorkerApp } from "../../apps/worker/src/worker-app.ts";
import { runCli } from "../support/cli.ts";
import { TRL_PYTHON, trlUnavailable, writeArithmeticTasks } from "../support/real-trainers.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";

// A failure only the trainer itself can see: the base policy's directory holds no model. The run
// passes every check `run` makes, TRL's job starts, transformers refuses the path, and the person
// waiting on `run --wait` must be told that, not only the events.
const database = await createTestDatabase(inject("databaseUrl"));
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const unavailable = trlUnavailable();
if (unavailable) console.error(`\nREAL-TRAINER TESTS NOT RUN: ${unavailable}\n`);

const dir = mkdtempSync(join(tmpdir(), "evo-real-trl-failed-"));
const cli = (args: string[]) => runCli(args, { DATABASE_URL: database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix });

describe.skipIf(unavailable !== null)("a run real TRL cannot train (CPU torch)", () => {
  afterAll(async () => {
    await deleteKeys(redisUrl, `${prefix}:*`);
    await database.drop();
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  it("fails its base once as a configuration error, and `run --wait` prints why", async () => {
    const tasksFile = join(dir, "train.jsonl");
    writeArithmeticTasks(tasksFile, "train", 4);
    writeArithmeticTasks(join(dir, "eval.jsonl"), "eval", 2, 30);
    const example = parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, any>;
    const split = { dataset: join(dir, "eval.jsonl"), samplesPerTask: 1, temperature: 0, maxResponseTokens: 4, grader: "math" };
    const config = {
      ...example,
      name: "trl-cannot-load",
      basePolicy: join(dir, "no-model-here"),
      recipe: { ...example.recipe, algo: { ...example.recipe.algo, groupSize: 2, maxResponseTokens: 4 } },
      evaluation: { promotion: split, sealed: split, seed: 7 },
      search: { proposals: 1, keep: 1, stepsPerBranch: 1, proposer: "rule" },
      budget: { gpuSeconds: 600, branches: 1, rounds: 1 },
      adapter: "trl",
      executor: "local",
      resources: { gpusPerJob: 0 },
      trainer: { python: TRL_PYTHON, dataset: tasksFile, args: { per_device_train_batch_size: 2 } },
    };
    const configFile = join(dir, "run.yaml");
    writeFileSync(configFile, JSON.stringify(config, null, 2));

    const env = loadWorkerEnv({ DATABASE_URL: database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_JOBS_DIR: join(dir, "jobs"), EVO_MONITOR_EVERY_MS: "500", EVO_RECONCILE_EVERY_MS: "5000" });
    const worker = await startWorkerApp(env, () => ({ name: "none", propose: async () => [] }), () => {});
    let result: Awaited<ReturnType<typeof cli>>;
    try {
      result = await cli(["run", configFile, "--wait"]);
    } finally {
      await worker.shutdown();
    }
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toMatch(/^failed · /);
    expect(result.stdout).toMatch(/\nno result: every branch failed \(1\); v0 \(the base\): config_error: cannot load the model .*no-model-here/);

    const db = createDatabase(database.url);
    try {
      // Once: a configuration error is never retried.
      expect(await db.job.findMany({ where: { kind: "train" }, select: { state: true, failureClass: true, attempts: true } })).toEqual([{ state: "failed", failureClass: "config_error", attempts: 1 }]);
    } finally {
      await db.$disconnect();
    }
  }, 300_000);
});
