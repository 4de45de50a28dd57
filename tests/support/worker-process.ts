import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import type { RunConfig } from "@evotrainer/core";
import { createRun, type Database } from "@evotrainer/db";
import { createProducerConnection, Producer, QueueName } from "@evotrainer/queue";
import { WORKER } from "./cli.ts";

export interface WorkerProcessOptions {
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
  jobsDir: string;
  /** Where the worker's stdout and stderr go, for when a test fails. */
  logFile: string;
  /** Stops the worker at a failpoint (`name:n`), writing the point to `file` (see apps/worker/src/failpoints.ts). */
  failpoint?: { spec: string; file: string };
  /** More of the worker's settings (EVO_WORKER_HEALTH_PORT, …). */
  env?: Record<string, string>;
}

/** The built worker as a child process, polling fast so crash tests move quickly. */
export function startWorkerProcess(options: WorkerProcessOptions): ChildProcess {
  mkdirSync(dirname(options.logFile), { recursive: true });
  const log = openSync(options.logFile, "w");
  return spawn(process.execPath, [WORKER], {
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      REDIS_URL: options.redisUrl,
      EVO_QUEUE_PREFIX: options.prefix,
      EVO_JOBS_DIR: options.jobsDir,
      EVO_MONITOR_EVERY_MS: "200",
      EVO_RECONCILE_EVERY_MS: "1000",
      ...(options.failpoint ? { EVO_FAILPOINT: options.failpoint.spec, EVO_FAILPOINT_FILE: options.failpoint.file } : {}),
      ...options.env,
    },
    stdio: ["ignore", log, log],
  });
}

/** SIGKILLs the worker (as a crash would) and waits until it is gone. */
export async function killWorker(worker: ChildProcess): Promise<void> {
  if (worker.exitCode !== null || worker.signalCode !== null) return;
  const exited = new Promise((resolve) => worker.once("exit", resolve));
  worker.kill("SIGKILL");
  await exited;
}

/**
 * A run in an organization of its own (so no skill learned elsewhere changes its course), handed to
 * the workers of `prefix` as the CLI hands it: its base branch's dispatch on the queue.
 */
export async function enqueueRun(db: Database, redisUrl: string, prefix: string, config: RunConfig): Promise<{ runId: string; baseBranchId: string }> {
  // One organization per run: a test file may start several runs under one prefix.
  const slug = `${prefix}-${await db.organization.count({ where: { slug: { startsWith: prefix } } })}`;
  const org = await db.organization.create({ data: { name: prefix, slug } });
  const { runId, baseBranchId } = await createRun(db, config, { organizationId: org.id });
  const connection = createProducerConnection(redisUrl);
  await connection.connect();
  const producer = new Producer(connection, prefix);
  await producer.enqueue(QueueName.Dispatch, { runId, branchId: baseBranchId });
  await producer.close();
  connection.disconnect();
  return { runId, baseBranchId };
}
