import { Job, Worker, type Processor } from "bullmq";
import type { Redis } from "ioredis";
import type { QueueName } from "@evotrainer/queue";

const LOCK_RENEWAL_FAILED = /^could not renew lock for job /;

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
    // A step that looks again later moves its own job to delayed, which ends the lock a renewal already
    // in flight was extending: BullMQ then reports a failed renewal of a job that is no longer active.
    // Only a job still active has truly lost its lock, and only that is said.
    worker.on("error", (error) => {
      if (!LOCK_RENEWAL_FAILED.test(error.message)) this.log(`${queue}: ${error.message}`);
    });
    worker.on("lockRenewalFailed", (jobIds) => void this.sayLostLocks(worker, queue, jobIds));
    this.workers.set(queue, worker);
    return worker;
  }

  private async sayLostLocks(worker: Worker, queue: QueueName, jobIds: string[]): Promise<void> {
    for (const id of jobIds) {
      const state = await Job.fromId(worker, id).then((job) => job?.getState(), () => "unknown");
      if (state === "active" || state === "unknown") {
        this.log(`${queue}: job ${id} lost its lock while its step ran (Redis was slow or this process stalled); another worker may take the step over, and a step run twice settles its rows once`);
      }
    }
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
