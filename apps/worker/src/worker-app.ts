import { createDatabase } from "@evotrainer/db";
import { createProducerConnection, createWorkerConnection, Producer, QueueName } from "@evotrainer/queue";
import type { WorkerEnv } from "./env.ts";
import { reconcile } from "./processors/reconcile.ts";
import { WorkerRegistry } from "./registry.ts";

export interface WorkerApp {
  registry: WorkerRegistry;
  /** Closes everything in dependency order: workers first (finish running jobs), then queues, Redis, Postgres. */
  shutdown(): Promise<void>;
}

export async function startWorkerApp(env: WorkerEnv, log: (line: string) => void = console.log): Promise<WorkerApp> {
  const db = createDatabase(env.DATABASE_URL);
  const workerConnection = createWorkerConnection(env.REDIS_URL);
  const producerConnection = createProducerConnection(env.REDIS_URL);
  await producerConnection.connect();
  const producer = new Producer(producerConnection, env.EVO_QUEUE_PREFIX);
  const registry = new WorkerRegistry(workerConnection, env.EVO_QUEUE_PREFIX, log);

  registry.register(QueueName.Reconcile, () => reconcile(db), 1);
  await producer.queue(QueueName.Reconcile).upsertJobScheduler(
    "reconcile-sweep",
    { every: env.EVO_RECONCILE_EVERY_MS },
    { name: QueueName.Reconcile, data: {} },
  );
  log(`worker: listening on ${registry.queues.join(", ")} (prefix ${env.EVO_QUEUE_PREFIX})`);

  let closing: Promise<void> | undefined;
  return {
    registry,
    shutdown: () =>
      (closing ??= (async () => {
        await registry.close();
        await producer.close();
        producerConnection.disconnect();
        workerConnection.disconnect();
        await db.$disconnect();
        log("worker: stopped");
      })()),
  };
}
