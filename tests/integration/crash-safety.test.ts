import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { runConfigSchema } from "@evotrainer/core";
import { createDatabase, createRun } from "@evotrainer/db";
import { createProducerConnection, Producer, QueueName } from "@evotrainer/queue";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";
import { until } from "../support/until.ts";

const databaseUrl = inject("databaseUrl");
const redisUrl = inject("redisUrl");
const jobsDir = mkdtempSync(join(tmpdir(), "evo-crash-"));
const db = createDatabase(databaseUrl);

// A short run of the demo config: two rounds, one branch kept per round.
const base = parse(readFileSync("examples/gym-swe.yaml", "utf8")) as Record<string, unknown>;
const config = runConfigSchema.parse({
  ...base,
  name: "crash-safety",
  search: { proposals: 2, keep: 1, stepsPerBranch: 12, proposer: "rule" },
  budget: { gpuSeconds: 900, branches: 2, rounds: 2 },
});

function startWorker(prefix: string): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", "apps/worker/src/main.ts"], {
    env: { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_JOBS_DIR: jobsDir, EVO_MONITOR_EVERY_MS: "200", EVO_RECONCILE_EVERY_MS: "1000" },
    stdio: "ignore",
  });
}


/** Starts a run in its own organization (so no skill learned elsewhere changes its course). */
async function startRun(prefix: string): Promise<string> {
  const org = await db.organization.create({ data: { name: prefix, slug: prefix } });
  const { runId, baseBranchId } = await createRun(db, config, { organizationId: org.id });
  const connection = createProducerConnection(redisUrl);
  await connection.connect();
  const producer = new Producer(connection, prefix);
  await producer.enqueue(QueueName.Dispatch, { runId, branchId: baseBranchId });
  await producer.close();
  connection.disconnect();
  return runId;
}

async function outcome(runId: string) {
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, include: { branches: { orderBy: { version: "asc" }, include: { intervention: true } } } });
  return {
    status: run.status,
    rollouts: await db.rollout.count({ where: { runId } }),
    labels: await db.rolloutLabel.count({ where: { rollout: { runId } } }),
    branches: run.branches.map((b) => `v${b.version} ${b.status} ${b.intervention?.factor ?? "base"}`),
    sealed: (run.finalReport as { sealed?: { score: number } } | null)?.sealed?.score ?? null,
  };
}

const finished = async (runId: string) => ["completed", "failed"].includes((await db.run.findUniqueOrThrow({ where: { id: runId } })).status);

describe("crash safety: SIGKILLed workers and a flushed Redis lose nothing and duplicate nothing", () => {
  const prefixes = [testPrefix(), testPrefix()];
  const workers: ChildProcess[] = [];
  afterAll(async () => {
    for (const w of workers) w.kill("SIGKILL");
    for (const p of prefixes) await deleteKeys(redisUrl, `${p}:*`);
    await db.$disconnect();
    rmSync(jobsDir, { recursive: true, force: true });
  });

  it("completes with the same rollouts, labels and branches as an undisturbed run of the same seed", async () => {
    const [calm, stormy] = prefixes as [string, string];

    workers.push(startWorker(calm));
    const calmRun = await startRun(calm);
    await until("the undisturbed run", () => finished(calmRun));
    const expected = await outcome(calmRun);

    let worker = startWorker(stormy);
    workers.push(worker);
    const restart = async (why: string) => {
      worker.kill("SIGKILL");
      await new Promise((resolve) => worker.once("exit", resolve));
      console.log(`killed the worker ${why}; restarting`);
      worker = startWorker(stormy);
      workers.push(worker);
    };
    const stormyRun = await startRun(stormy);

    // 1. During a job, while its rollouts are being ingested.
    await until("base rollouts arriving", async () => (await db.rollout.count({ where: { runId: stormyRun } })) > 0);
    await restart("during training and ingest");
    // 2. Redis loses every key of this installation mid-run; the worker keeps running.
    await until("round 1 proposed", async () => (await db.branch.count({ where: { runId: stormyRun } })) > 1);
    console.log(`flushed ${await deleteKeys(redisUrl, `${stormy}:*`)} Redis keys mid-run`);
    // 3. Between steps, once a child branch has been judged.
    await until("a child verdict", async () => (await db.verdict.count({ where: { branch: { runId: stormyRun, parentId: { not: null } } } })) > 0);
    await restart("between steps");

    await until("the disturbed run", () => finished(stormyRun));
    const got = await outcome(stormyRun);
    console.log("undisturbed:", expected, "\ndisturbed:", got);
    expect(got).toEqual(expected);
    expect(got.status).toBe("completed");
    expect(got.rollouts).toBeGreaterThan(0);
  }, 600_000);
});
