import { DelayedError, type Job } from "bullmq";
import { gymAdapter, trlAdapter, verlAdapter } from "@evotrainer/adapters";
import { isServiceUnavailable, serverAddress, ServiceStatus } from "@evotrainer/core";
import { createDatabase, createPgPool, masterKeyOrLocal, statusOfDatabase, webhookAllowList } from "@evotrainer/db";
import { whileUnreachable } from "@evotrainer/db/connection";
import { LabelerPool } from "@evotrainer/db/ingest";
import { createProducerConnection, createWorkerConnection, payloadSchemas, Producer, QueueName, type Payload } from "@evotrainer/queue";
import type { WorkerEnv } from "./env.ts";
import { answerTrainerArgs } from "./checks/answer-trainer-args.ts";
import { ExecutorPool } from "./executors/executor-pool.ts";
import { failpoints } from "./failpoints.ts";
import { outliveOutages } from "./outlive-outages.ts";
import { decide } from "./loop/decide.ts";
import type { LoopDeps } from "./loop/deps.ts";
import { dispatch, WAITING_FOR_GPU } from "./loop/dispatch.ts";
import { HarnessCache } from "./loop/harness-cache.ts";
import { monitor } from "./loop/monitor.ts";
import { propose } from "./loop/propose.ts";
import type { ProposerFactory } from "./loop/proposer-factory.ts";
import { verdict } from "./loop/verdict.ts";
import { controlStep } from "./loop/control-run.ts";
import { retainWeightsOfEndedRuns } from "./loop/retention-sweep.ts";
import { reconcile } from "./loop/reconcile.ts";
import { sweepSlurmPartitions } from "./loop/slurm-partitions.ts";
import { deliver } from "./notify/deliver.ts";
import { relayNotifications } from "./notify/relay.ts";
import { WorkerRegistry } from "./registry.ts";
import { indexSearch } from "./search/index-search.ts";
import { untilRedisAnswers } from "./until-redis-answers.ts";
import { sweepSearch } from "./search/sweep-search.ts";

const RECONCILE_SCHEDULER = "reconcile-sweep";

export interface WorkerApp {
  registry: WorkerRegistry;
  /** Closes everything in dependency order: workers first (finish running jobs), then queues, Redis, Postgres. */
  shutdown(): Promise<void>;
}

export async function startWorkerApp(
  env: WorkerEnv,
  proposerFor: ProposerFactory,
  log: (line: string) => void = console.log,
): Promise<WorkerApp> {
  const db = createDatabase(env.DATABASE_URL);
  const pool = createPgPool(env.DATABASE_URL, { max: env.EVO_WORKER_CONCURRENCY });
  const redis = new ServiceStatus("Redis", serverAddress(env.REDIS_URL), { meanwhile: "waiting for it before taking jobs", resumed: "carrying on" }, log);
  await untilRedisAnswers(env.REDIS_URL, redis);
  const workerConnection = createWorkerConnection(env.REDIS_URL);
  const producerConnection = createProducerConnection(env.REDIS_URL);
  // Unheard, ioredis prints every failed reconnect; heard, a later outage is said once, and its end.
  for (const connection of [workerConnection, producerConnection]) {
    connection.on("error", (error: Error) => {
      if (isServiceUnavailable(error)) redis.down(error.message || error.name);
    });
    connection.on("ready", () => redis.up());
  }
  await producerConnection.connect();
  const producer = new Producer(producerConnection, env.EVO_QUEUE_PREFIX);
  const registry = new WorkerRegistry(workerConnection, env.EVO_QUEUE_PREFIX, log);
  const deps: LoopDeps = {
    db,
    pool,
    producer,
    executors: new ExecutorPool(db, env.EVO_JOBS_DIR, process.env, log),
    adapters: { gym: gymAdapter(), verl: verlAdapter(), trl: trlAdapter() },
    proposerFor,
    harnesses: new HarnessCache(db),
    labelers: new LabelerPool(),
    log,
    monitorEveryMs: env.EVO_MONITOR_EVERY_MS,
    heartbeatStaleMs: env.EVO_HEARTBEAT_STALE_MS,
    failpoint: failpoints(env.EVO_FAILPOINT, env.EVO_FAILPOINT_FILE),
  };
  const concurrency = env.EVO_WORKER_CONCURRENCY;
  const services = { databaseUrl: env.DATABASE_URL, postgres: statusOfDatabase(db), redisUrl: env.REDIS_URL, redis };

  // Each step reads its payload through the queue's schema (a malformed one fails there, named), and can
  // be stopped at its start by a crash test.
  const at = <Q extends QueueName, T>(queue: Q, step: (payload: Payload<Q>) => Promise<T>) => async (job: Job) => {
    const payload = payloadSchemas[queue].parse(job.data) as Payload<Q>;
    await deps.failpoint(`step:${queue}`);
    return outliveOutages(services, () => step(payload));
  };
  registry.register(QueueName.Propose, at(QueueName.Propose, (payload) => propose(deps, payload)), 1);
  // A job waiting for GPUs, or running, is looked at again later instead of holding a worker slot.
  const lookAgainLater = (step: (job: Job) => Promise<string>, whileThis: string, everyMs: number) => async (job: Job, token?: string) => {
    const outcome = await step(job);
    if (outcome !== whileThis) return outcome;
    await job.moveToDelayed(Date.now() + everyMs, token);
    throw new DelayedError();
  };
  registry.register(QueueName.Dispatch, lookAgainLater(at(QueueName.Dispatch, (payload) => dispatch(deps, payload)), WAITING_FOR_GPU, env.EVO_PLACEMENT_EVERY_MS), concurrency);
  registry.register(QueueName.Monitor, lookAgainLater(at(QueueName.Monitor, (payload) => monitor(deps, payload)), "running", deps.monitorEveryMs), concurrency);
  registry.register(QueueName.Verdict, at(QueueName.Verdict, (payload) => verdict(deps, payload)), concurrency);
  registry.register(QueueName.Decide, at(QueueName.Decide, (payload) => decide(deps, payload)), concurrency);
  registry.register(QueueName.Control, at(QueueName.Control, (payload) => controlStep(deps, payload)), 1);
  const notifyDeps = { db, producer, masterKey: masterKeyOrLocal(process.env), publicUrl: env.EVO_PUBLIC_URL, retryBaseMs: env.EVO_NOTIFY_RETRY_BASE_MS, allowed: webhookAllowList() };
  registry.register(
    QueueName.Reconcile,
    () =>
      outliveOutages(services, async () => ({
        ...(await reconcile(db, producer)),
        notifications: await relayNotifications(db, producer),
        search: await sweepSearch(db, producer),
        slurmClusters: await sweepSlurmPartitions(db, deps.executors, log),
        retainedBytesFreed: env.EVO_RETENTION === "after-run" ? await retainWeightsOfEndedRuns(db, (job) => deps.executors.weightsPlace(job), log) : 0,
      })),
    1,
  );
  registry.register(QueueName.Notify, at(QueueName.Notify, (payload) => deliver(notifyDeps, payload)), concurrency);
  // One at a time: indexing is CPU work that would otherwise compete with ingest on a small machine.
  registry.register(QueueName.Search, at(QueueName.Search, (payload) => indexSearch(db, payload)), 1);
  // A person waits on each answer (a run being created), so these never queue behind loop steps.
  registry.register(QueueName.TrainerArgs, at(QueueName.TrainerArgs, (payload) => answerTrainerArgs(deps, payload)), concurrency);
  const reconcileQueue = producer.queue(QueueName.Reconcile);
  const ensureSweep = async () => {
    if (await reconcileQueue.getJobScheduler(RECONCILE_SCHEDULER)) return;
    await reconcileQueue.upsertJobScheduler(RECONCILE_SCHEDULER, { every: env.EVO_RECONCILE_EVERY_MS }, { name: QueueName.Reconcile, data: {} });
  };
  // Redis may go again between the PING and here: the sweep is scheduled once it is back.
  await whileUnreachable(redis, ensureSweep);
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
        await deps.executors.close();
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
