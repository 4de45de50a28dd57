import { DelayedError, type Job } from "bullmq";
import pg from "pg";
import { gymAdapter } from "@evotrainer/adapters";
import type { LockedEvaluation, Proposer } from "@evotrainer/core";
import { createDatabase } from "@evotrainer/db";
import { LabelerPool } from "@evotrainer/db/ingest";
import { LocalExecutor } from "@evotrainer/executors";
import { createProducerConnection, createWorkerConnection, Producer, QueueName } from "@evotrainer/queue";
import type { WorkerEnv } from "./env.ts";
import { decide } from "./loop/decide.ts";
import type { LoopDeps } from "./loop/deps.ts";
import { dispatch } from "./loop/dispatch.ts";
import { HarnessCache } from "./loop/harness-cache.ts";
import { monitor } from "./loop/monitor.ts";
import { propose } from "./loop/propose.ts";
import { verdict } from "./loop/verdict.ts";
import { reconcile } from "./loop/reconcile.ts";
import { WorkerRegistry } from "./registry.ts";

const RECONCILE_SCHEDULER = "reconcile-sweep";

export interface WorkerApp {
  registry: WorkerRegistry;
  /** Closes everything in dependency order: workers first (finish running jobs), then queues, Redis, Postgres. */
  shutdown(): Promise<void>;
}

export async function startWorkerApp(
  env: WorkerEnv,
  proposerFor: (lockedEvaluation: LockedEvaluation) => Proposer,
  log: (line: string) => void = console.log,
): Promise<WorkerApp> {
  const db = createDatabase(env.DATABASE_URL);
  const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: env.EVO_WORKER_CONCURRENCY });
  const workerConnection = createWorkerConnection(env.REDIS_URL);
  const producerConnection = createProducerConnection(env.REDIS_URL);
  await producerConnection.connect();
  const producer = new Producer(producerConnection, env.EVO_QUEUE_PREFIX);
  const registry = new WorkerRegistry(workerConnection, env.EVO_QUEUE_PREFIX, log);
  const deps: LoopDeps = {
    db,
    pool,
    producer,
    executor: new LocalExecutor(env.EVO_JOBS_DIR),
    adapters: { gym: gymAdapter() },
    proposerFor,
    harnesses: new HarnessCache(db),
    labelers: new LabelerPool(),
    log,
    monitorEveryMs: env.EVO_MONITOR_EVERY_MS,
  };
  const concurrency = env.EVO_WORKER_CONCURRENCY;

  registry.register(QueueName.Propose, (job) => propose(deps, job.data), 1);
  registry.register(QueueName.Dispatch, (job) => dispatch(deps, job.data), concurrency);
  // A running job is looked at again later instead of holding a worker slot while it trains.
  registry.register(
    QueueName.Monitor,
    async (job: Job, token?: string) => {
      const outcome = await monitor(deps, job.data);
      if (outcome !== "running") return outcome;
      await job.moveToDelayed(Date.now() + deps.monitorEveryMs, token);
      throw new DelayedError();
    },
    concurrency,
  );
  registry.register(QueueName.Verdict, (job) => verdict(deps, job.data), concurrency);
  registry.register(QueueName.Decide, (job) => decide(deps, job.data), concurrency);
  registry.register(QueueName.Reconcile, () => reconcile(db, producer), 1);
  const reconcileQueue = producer.queue(QueueName.Reconcile);
  const ensureSweep = async () => {
    if (await reconcileQueue.getJobScheduler(RECONCILE_SCHEDULER)) return;
    await reconcileQueue.upsertJobScheduler(RECONCILE_SCHEDULER, { every: env.EVO_RECONCILE_EVERY_MS }, { name: QueueName.Reconcile, data: {} });
  };
  await ensureSweep();
  // Redis may lose everything (a restart without persistence, a flush): the sweep is put back, and
  // the sweep itself re-enqueues every step from Postgres.
  const sweepGuard = setInterval(() => void ensureSweep().catch(() => {}), env.EVO_RECONCILE_EVERY_MS);
  log(`worker: listening on ${registry.queues.join(", ")} (prefix ${env.EVO_QUEUE_PREFIX}, jobs in ${env.EVO_JOBS_DIR})`);

  let closing: Promise<void> | undefined;
  return {
    registry,
    shutdown: () =>
      (closing ??= (async () => {
        clearInterval(sweepGuard);
        await registry.close();
        await producer.close();
        producerConnection.disconnect();
        workerConnection.disconnect();
        await deps.labelers.close();
        await pool.end();
        await db.$disconnect();
        log("worker: stopped");
      })()),
  };
}
