import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { readHeartbeat } from "@evotrainer/contract";
import { runConfigSchema } from "@evotrainer/core";
import { createDatabase } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";
import { untilRunSettled } from "../support/stop-run.ts";
import { until } from "../support/until.ts";
import { enqueueRun, killWorker, startWorkerProcess } from "../support/worker-process.ts";

// A database of its own: a worker's reconcile sweep drives every run of its database.
const database = await createTestDatabase(inject("databaseUrl"));
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const scratch = mkdtempSync(join(tmpdir(), "evo-gpu-seconds-"));
const jobsDir = join(scratch, "jobs");
const db = createDatabase(database.url);

// The gym paced to 4 steps a second, so its job outlives the first monitor pass that sees it running.
const config = runConfigSchema.parse({
  ...(parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, unknown>),
  name: "gpu seconds",
  search: { proposals: 1, keep: 1, stepsPerBranch: 12, proposer: "rule" },
  budget: { gpuSeconds: 100_000, branches: 1, rounds: 1 },
  trainer: { stepsPerSecond: 4 },
});

describe("GPU-seconds are the job's own time", () => {
  const workers: ChildProcess[] = [];
  afterAll(async () => {
    for (const w of workers) await killWorker(w);
    await deleteKeys(redisUrl, `${prefix}:*`);
    await db.$disconnect();
    await database.drop();
    rmSync(scratch, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  it("a job that runs on while its worker is SIGKILLed, and ends before the worker is back, is charged its own runtime, not the downtime", async () => {
    const { runId, baseBranchId } = await enqueueRun(db, redisUrl, prefix, config);

    // The worker stops at its first monitor pass of the running job (after charging it) and is killed there.
    const stopped = join(scratch, "failpoint");
    const first = startWorkerProcess({ databaseUrl: database.url, redisUrl, prefix, jobsDir, logFile: join(scratch, "worker-1.log"), failpoint: { spec: "monitor:training:1", file: stopped } });
    workers.push(first);
    await until("the first monitor pass of the running job", async () => existsSync(stopped));
    await killWorker(first);
    const job = await db.job.findFirstOrThrow({ where: { branchId: baseBranchId, kind: "train" } });
    expect(job.state).toBe("running");
    const chargedBefore = job.gpuSeconds;

    // The job goes on without a worker and ends; only then does a worker come back.
    await until("the job to end with no worker", async () => existsSync(join(jobsDir, job.id, "exit_code")));
    const clock = (await readHeartbeat(join(jobsDir, job.id, "output")))!;
    const ownRuntime = (Date.parse(clock.time) - Date.parse(clock.startedAt!)) / 1000;
    const second = startWorkerProcess({ databaseUrl: database.url, redisUrl, prefix, jobsDir, logFile: join(scratch, "worker-2.log") });
    workers.push(second);
    const ended = await until("the restarted worker to settle the job", async () => {
      const row = await db.job.findUniqueOrThrow({ where: { id: job.id } });
      return row.state === "running" ? null : row;
    });

    expect(ended.state).toBe("succeeded");
    expect(ownRuntime).toBeGreaterThan(chargedBefore);
    // Charged exactly what the job's clock says it ran (its last beat, written as it ended), in two parts.
    expect(ended.gpuSeconds).toBeCloseTo(ownRuntime, 3);
    // The control plane's wall time from launch to the pass after the restart spans the downtime and the
    // restart as well: that is what the old rule charged, and more than the job ran.
    const wallTime = (ended.finishedAt!.getTime() - ended.startedAt!.getTime()) / 1000;
    expect(wallTime).toBeGreaterThan(ended.gpuSeconds);
    console.log(`job clock ${ownRuntime.toFixed(3)} s, charged ${ended.gpuSeconds.toFixed(3)} s, control-plane wall time ${wallTime.toFixed(3)} s`);
    // Its later jobs are detached from the worker: left running, they would write into the directory removed after the tests.
    await untilRunSettled(db, runId);
  }, 300_000);

  it("a trainer whose heartbeat carries no startedAt is charged its process's own time (the wrapper's start and exit records), across a worker SIGKILL and restart", async () => {
    // The last test's worker would drive this run too.
    for (const w of workers) await killWorker(w);
    // The gym as a contract trainer that does not track its own start: its beats leave `startedAt` out.
    const { runId, baseBranchId } = await enqueueRun(db, redisUrl, prefix, { ...config, name: "gpu seconds without a start", trainer: { ...config.trainer, heartbeatStartedAt: false } });

    const stopped = join(scratch, "failpoint-process");
    const first = startWorkerProcess({ databaseUrl: database.url, redisUrl, prefix, jobsDir, logFile: join(scratch, "worker-3.log"), failpoint: { spec: "monitor:training:1", file: stopped } });
    workers.push(first);
    await until("the first monitor pass of the running job", async () => existsSync(stopped));
    await killWorker(first);
    const job = await db.job.findFirstOrThrow({ where: { branchId: baseBranchId, kind: "train" } });
    expect(job.state).toBe("running");

    const dir = join(jobsDir, job.id);
    await until("the job to end with no worker", async () => existsSync(join(dir, "exit_code")));
    const beat = (await readHeartbeat(join(dir, "output")))!;
    expect(beat.startedAt).toBeUndefined();
    // The process's own time: from the wrapper's start marker to its exit record, on this machine's clock.
    const ownRuntime = (statSync(join(dir, "exit_code")).mtimeMs - statSync(join(dir, "started")).mtimeMs) / 1000;
    expect(ownRuntime).toBeGreaterThan(job.gpuSeconds);
    const second = startWorkerProcess({ databaseUrl: database.url, redisUrl, prefix, jobsDir, logFile: join(scratch, "worker-4.log") });
    workers.push(second);
    const ended = await until("the restarted worker to settle the job", async () => {
      const row = await db.job.findUniqueOrThrow({ where: { id: job.id } });
      return row.state === "running" ? null : row;
    });

    expect(ended.state).toBe("succeeded");
    // Within the millisecond the times are recorded to, not the downtime and restart in between.
    expect(Math.abs(ended.gpuSeconds - ownRuntime)).toBeLessThan(0.005);
    const wallTime = (ended.finishedAt!.getTime() - ended.startedAt!.getTime()) / 1000;
    expect(wallTime).toBeGreaterThan(ended.gpuSeconds);
    console.log(`process time ${ownRuntime.toFixed(3)} s, charged ${ended.gpuSeconds.toFixed(3)} s, control-plane wall time ${wallTime.toFixed(3)} s`);
    await untilRunSettled(db, runId);
  }, 300_000);
});
