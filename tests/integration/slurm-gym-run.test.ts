import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parse, stringify } from "yaml";
import { appRouter, createCallerFactory, createContext } from "@evotrainer/api";
import { parseScontrolJob, runConfigSchema } from "@evotrainer/core";
import { createDatabase } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { runCli } from "../support/cli.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";
import { startSlurm, type Slurm } from "../support/slurm.ts";
import { until } from "../support/until.ts";
import { enqueueRun, killWorker, startWorkerProcess } from "../support/worker-process.ts";

// A database of its own: `nodes sync` disables the nodes its file does not list, installation-wide.
const database = await createTestDatabase(inject("databaseUrl"));
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const scratch = mkdtempSync(join(tmpdir(), "evo-slurm-run-"));
const db = createDatabase(database.url);
const workers: ChildProcess[] = [];
let slurm: Slurm;

const gym = (name: string, extra: Record<string, unknown>) =>
  runConfigSchema.parse({
    ...(parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, unknown>),
    name,
    executor: "slurm",
    resources: { gpusPerJob: 0, cluster: "one-node" },
    ...extra,
  });

/** What slurmctld says of every job it knows, by name: the accounting this cluster has without slurmdbd. */
async function slurmJobs(): Promise<Map<string, { id: string; state: string }[]>> {
  const byName = new Map<string, { id: string; state: string }[]>();
  for (const line of (await slurm.client("scontrol", ["show", "job", "-o"])).split("\n")) {
    const job = parseScontrolJob(line);
    if (!job) continue;
    byName.set(job.JobName!, [...(byName.get(job.JobName!) ?? []), { id: job.JobId!, state: job.JobState! }]);
  }
  return byName;
}

beforeAll(async () => {
  slurm = await startSlurm();
  // The worker processes run Slurm's clients with this, as a login node's /etc/slurm would have it.
  process.env.SLURM_CONF = slurm.env.SLURM_CONF;
  const compute = { clusters: [{ name: "one-node", login: "local", jobRoot: join(slurm.sharedDir, "jobs"), partition: slurm.partition, timeLimit: "00:10:00" }] };
  writeFileSync(join(scratch, "compute.yaml"), stringify(compute));
  const synced = await runCli(["nodes", "sync", join(scratch, "compute.yaml")], { DATABASE_URL: database.url, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix });
  expect(synced.code, synced.stderr).toBe(0);
  expect(synced.stdout).toMatch(/1 Slurm cluster\(s\) synced/);
  expect(synced.stdout).toMatch(/one-node +slurm local login +partition evo/);
});

afterAll(async () => {
  for (const worker of workers) await killWorker(worker);
  await slurm?.stop();
  await deleteKeys(redisUrl, `${prefix}:*`);
  await db.$disconnect();
  await database.drop();
  rmSync(scratch, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

describe("a gym run with executor: slurm, on a real one-node Slurm", () => {
  it("completes, every one of its jobs a Slurm batch job that slurmctld lists as COMPLETED", async () => {
    const config = gym("slurm gym", { search: { proposals: 1, keep: 1, stepsPerBranch: 4, proposer: "rule" }, budget: { gpuSeconds: 100_000, branches: 2, rounds: 1 } });
    const { runId } = await enqueueRun(db, redisUrl, prefix, config);
    const worker = startWorkerProcess({ databaseUrl: database.url, redisUrl, prefix, jobsDir: join(scratch, "control-plane-1"), logFile: join(scratch, "worker-1.log") });
    workers.push(worker);
    const run = await until("the run to end", async () => {
      const row = await db.run.findUniqueOrThrow({ where: { id: runId } });
      return row.status === "completed" || row.status === "failed" ? row : null;
    }).catch((error: Error) => {
      throw new Error(`${error.message}; the worker's log ends:\n${readFileSync(join(scratch, "worker-1.log"), "utf8").slice(-4_000)}`);
    });
    expect(run.status, readFileSync(join(scratch, "worker-1.log"), "utf8").slice(-3_000)).toBe("completed");
    const jobs = await db.job.findMany({ where: { branch: { runId } }, include: { node: true } });
    expect(jobs.length).toBeGreaterThanOrEqual(3);
    const listed = await slurmJobs();
    for (const job of jobs) {
      expect(job).toMatchObject({ executor: "slurm", node: { name: "one-node" }, outputUri: join(slurm.sharedDir, "jobs", job.id) });
      if (job.state !== "succeeded") continue;
      expect(listed.get(`evo-${job.id}-a${job.attempts}`)).toEqual([{ id: job.externalId, state: "COMPLETED" }]);
      expect(existsSync(join(job.outputUri!, "job.sbatch"))).toBe(true);
    }
    expect(jobs.filter((job) => job.state === "succeeded").length).toBeGreaterThanOrEqual(3);
    expect(await db.rollout.count({ where: { branch: { runId } } })).toBeGreaterThan(0);

    // The nodes page's API shows the partition as the worker's sweep last read it with sinfo.
    const member = await db.user.create({ data: { email: `${prefix}@example.test`, name: "slurm test", emailVerified: true } });
    await db.membership.create({ data: { userId: member.id, organizationId: run.organizationId, role: "viewer" } });
    const caller = createCallerFactory(appRouter)(createContext({ db, headers: new Headers(), sessionUserId: async () => member.id, producer: () => { throw new Error("node.list enqueues nothing"); } }));
    const cluster = await until("the cluster's partitions on the nodes page", async () => (await caller.node.list()).find((node) => node.name === "one-node" && node.partitions));
    expect(cluster).toMatchObject({ executor: "slurm", address: "slurm login on the worker's machine, partition evo", workRoot: join(slurm.sharedDir, "jobs") });
    expect(cluster.partitions).toEqual([{ partition: "evo", available: true, timeLimit: "infinite", nodes: 1, state: expect.stringMatching(/idle|mixed|allocated/), cpus: expect.objectContaining({ total: cpus().length }), gres: null }]);
    await killWorker(worker);
  });

  it("a worker SIGKILLed while its Slurm job runs is replaced by one that adopts the job: not resubmitted", async () => {
    // Paced so the job outlives the worker's first look at it; still queued or running then, it is the worker's to adopt either way.
    const config = gym("slurm adoption", { search: { proposals: 1, keep: 1, stepsPerBranch: 12, proposer: "rule" }, budget: { gpuSeconds: 100_000, branches: 1, rounds: 1 }, trainer: { stepsPerSecond: 4 } });
    const { baseBranchId } = await enqueueRun(db, redisUrl, prefix, config);
    const stopped = join(scratch, "failpoint");
    const first = startWorkerProcess({ databaseUrl: database.url, redisUrl, prefix, jobsDir: join(scratch, "control-plane-2"), logFile: join(scratch, "worker-2.log"), failpoint: { spec: "monitor:training:1", file: stopped } });
    workers.push(first);
    await until("the first monitor pass of the running Slurm job", async () => existsSync(stopped));
    await killWorker(first);
    const job = await db.job.findFirstOrThrow({ where: { branchId: baseBranchId, kind: "train" } });
    expect(job).toMatchObject({ state: "running", attempts: 1, executor: "slurm" });
    expect((await slurmJobs()).get(`evo-${job.id}-a1`)).toEqual([{ id: job.externalId, state: expect.stringMatching(/PENDING|RUNNING|COMPLETING|COMPLETED/) }]);

    const second = startWorkerProcess({ databaseUrl: database.url, redisUrl, prefix, jobsDir: join(scratch, "control-plane-3"), logFile: join(scratch, "worker-3.log") });
    workers.push(second);
    const ended = await until("the restarted worker to settle the job", async () => {
      const row = await db.job.findUniqueOrThrow({ where: { id: job.id } });
      return row.state === "running" ? null : row;
    });
    expect(ended).toMatchObject({ state: "succeeded", attempts: 1, externalId: job.externalId });
    const listed = await slurmJobs();
    expect(listed.get(`evo-${job.id}-a1`)).toEqual([{ id: job.externalId, state: "COMPLETED" }]);
    expect(listed.has(`evo-${job.id}-a2`)).toBe(false);
    // The run's later jobs need not finish: the workers are killed, and stopping the cluster cancels what it still runs.
  });
});
