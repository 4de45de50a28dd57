import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
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
