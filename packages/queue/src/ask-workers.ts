import { randomUUID } from "node:crypto";
import { QueueEvents } from "bullmq";
import { payloadSchemas, type Payload } from "./payloads.ts";
import type { Producer } from "./producer.ts";
import type { QueueName } from "./queue-names.ts";

/** How long an asker waits: for a worker to take the question, then for its answer. */
export interface AskWaits {
  pickupMs: number;
  answerMs: number;
}

export type WorkerReply = { answered: true; value: unknown } | { answered: false; reason: string };

const inSeconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/**
 * Asks the workers a question only they can answer (they hold the executors' credentials) as one
 * job on `queue`, and waits for its return value, bounded twice: a question no worker takes within
 * `pickupMs` is withdrawn, and one taken is waited for `answerMs` more. A reply that never comes,
 * and Redis being away, are `answered: false` with the reason, never an exception.
 */
export async function askWorkers<Q extends QueueName>(producer: Producer, queue: Q, payload: Payload<Q>, waits: AskWaits): Promise<WorkerReply> {
  const data = payloadSchemas[queue].parse(payload);
  // Blocking reads need a connection of their own that retries; the producer's fails fast.
  const connection = producer.connection.duplicate({ maxRetriesPerRequest: null, enableOfflineQueue: true, lazyConnect: false });
  connection.on("error", () => {});
  const events = new QueueEvents(queue, { connection, prefix: producer.prefix });
  events.on("error", () => {});
  try {
    await events.waitUntilReady();
    let taken: () => void = () => {};
    const id = `${queue}-${randomUUID()}`;
    const pickedUp = new Promise<void>((resolve) => {
      taken = resolve;
    });
    events.on("active", ({ jobId }) => {
      if (jobId === id) taken();
    });
    const job = await producer.queue(queue).add(queue, data, { jobId: id, attempts: 1, removeOnComplete: { age: 3_600 }, removeOnFail: { age: 3_600 } });
    // A worker marks the job active before it can finish it, and the events were read before it was added.
    let timer: NodeJS.Timeout | undefined;
    const unpicked = new Promise<"unpicked">((resolve) => {
      timer = setTimeout(() => resolve("unpicked"), waits.pickupMs);
    });
    const first = await Promise.race([pickedUp.then(() => "taken" as const), unpicked]);
    clearTimeout(timer);
    // Withdrawn unless a worker took it meanwhile (a taken job is locked and cannot be removed).
    if (first === "unpicked" && (await job.remove().then(() => true, () => false))) {
      return { answered: false, reason: `no worker took the question within ${inSeconds(waits.pickupMs)} (is a worker running with EVO_QUEUE_PREFIX=${producer.prefix}? \`npm start -w @evotrainer/worker\` starts one)` };
    }
    return await job.waitUntilFinished(events, waits.answerMs).then(
      (value: unknown) => ({ answered: true as const, value }),
      (error: Error) => ({
        answered: false as const,
        reason: /timed out/.test(error.message) ? `the worker did not answer within ${inSeconds(waits.answerMs)}` : `the worker failed: ${error.message}`,
      }),
    );
  } catch (error) {
    return { answered: false, reason: `Redis: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    await events.close().catch(() => {});
    connection.disconnect();
  }
}
