import { Queue, type JobsOptions } from "bullmq";
import type { Redis } from "ioredis";
import { payloadSchemas, jobIdFor, type Payload } from "./payloads.ts";
import { queueNames, type QueueName } from "./queue-names.ts";

const defaultJobOptions: JobsOptions = {
  attempts: 5,
  backoff: { type: "exponential", delay: 1_000 },
  // Postgres holds the history; Redis only keeps enough to debug recent work.
  removeOnComplete: { count: 1_000 },
  removeOnFail: { count: 5_000 },
};

/** Enqueues loop steps. One instance per process, over a producer connection. */
export class Producer {
  private readonly queues = new Map<QueueName, Queue>();

  constructor(
    readonly connection: Redis,
    readonly prefix: string,
  ) {}

  queue(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.connection, prefix: this.prefix, defaultJobOptions });
      // Unheard, BullMQ prints each of the connection's failed reconnects with its stack; the
      // connection's owner hears them and says an outage once, and an enqueue reports its own failure.
      queue.on("error", () => {});
      this.queues.set(name, queue);
    }
    return queue;
  }

  /**
   * Validates the payload and adds the step deduplicated by its deterministic id: a step enqueued
   * twice (a retry, the reconciler, a restarted worker) exists once while it is waiting, delayed
   * or running, and can be enqueued again once it has finished. Returns the BullMQ job id.
   */
  async enqueue<Q extends QueueName>(name: Q, payload: Payload<Q>, options: Pick<JobsOptions, "delay" | "priority"> = {}): Promise<string> {
    const parsed = payloadSchemas[name].parse(payload) as Payload<Q>;
    const job = await this.queue(name).add(name, parsed, { ...options, deduplication: { id: jobIdFor(name, parsed) } });
    return job.id ?? "";
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    this.queues.clear();
  }
}

export { queueNames };
