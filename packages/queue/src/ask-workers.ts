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

// How often a question's job is looked at while no worker has taken it.
const PICKUP_POLL_MS = 250;

const inSeconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/** `promise`'s value, or `late` once `ms` have passed; the timer is cleared either way, so no process is held open by it. */
async function within<T, L>(promise: Promise<T>, ms: number, late: L): Promise<T | L> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<L>((resolve) => {
    timer = setTimeout(() => resolve(late), ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Asks the workers a question only they can answer (they hold the executors' credentials) as one
 * job on `queue`, and waits for its return value, bounded twice: a question no worker takes within
 * `pickupMs` is withdrawn, and one taken is waited for `answerMs` more. A reply that never comes,
 * and Redis being away, are `answered: false` with the reason, never an exception.
 */
export async function askWorkers<Q extends QueueName>(producer: Producer, queue: Q, payload: Payload<Q>, waits: AskWaits): Promise<WorkerReply> {
  const data = payloadSchemas[queue].parse(payload);
  // Redis first, over the producer's fail-fast connection: a QueueEvents on a server that is away
  // retries for ever, and cannot even be closed.
  try {
    if (producer.connection.status === "wait") await producer.connection.connect();
    if ((await within(producer.connection.ping(), waits.pickupMs, "late" as const)) === "late") throw new Error(`no answer within ${inSeconds(waits.pickupMs)}`);
  } catch (error) {
    return { answered: false, reason: `Redis is unreachable (${error instanceof Error ? error.message : String(error)})` };
  }
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
    // Taken: active or already finished. The "active" event says so at once, but QueueEvents may
    // start reading just after the job was added, so the job's state is looked at too.
    const deadline = Date.now() + waits.pickupMs;
    let waiting = true;
    while (waiting && Date.now() < deadline) {
      waiting = ["waiting", "prioritized", "delayed", "waiting-children"].includes(await job.getState());
      if (waiting) await within(pickedUp, Math.min(PICKUP_POLL_MS, Math.max(0, deadline - Date.now())), null);
    }
    // Withdrawn unless a worker took it meanwhile (a taken job is locked and cannot be removed).
    if (waiting && (await job.remove().then(() => true, () => false))) {
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
