import { Worker, type Processor } from "bullmq";
import type { Redis } from "ioredis";
import type { QueueName } from "@evotrainer/queue";

/**
 * Starts one BullMQ Worker per registered queue (Langfuse's worker registry) and closes them
 * together. Workers share one blocking connection config; BullMQ duplicates it per worker.
 */
export class WorkerRegistry {
  private readonly workers = new Map<QueueName, Worker>();

  constructor(
    private readonly connection: Redis,
    private readonly prefix: string,
    private readonly log: (line: string) => void,
  ) {}

  register(queue: QueueName, processor: Processor, concurrency: number): Worker {
    if (this.workers.has(queue)) throw new Error(`a worker for queue "${queue}" is already registered`);
    // A short lock (renewed while a step runs) lets another worker take over soon after one is killed.
    const worker = new Worker(queue, processor, { connection: this.connection, prefix: this.prefix, concurrency, lockDuration: 10_000, stalledInterval: 5_000 });
    worker.on("failed", (job, error) => this.log(`${queue}: job ${job?.id ?? "?"} failed (attempt ${job?.attemptsMade ?? "?"}): ${error.message}`));
    worker.on("error", (error) => this.log(`${queue}: ${error.message}`));
    this.workers.set(queue, worker);
    return worker;
  }

  get queues(): QueueName[] {
    return [...this.workers.keys()];
  }

  /** Stops taking new jobs and waits for running ones to finish. */
  async close(): Promise<void> {
    await Promise.all([...this.workers.values()].map((worker) => worker.close()));
    this.workers.clear();
  }
}
