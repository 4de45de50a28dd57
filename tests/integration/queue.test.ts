import { afterAll, describe, expect, inject, it } from "vitest";
import { Queue, QueueEvents, Worker } from "bullmq";
import {
  createProducerConnection,
  createWorkerConnection,
  jobIdFor,
  pingRedis,
  Producer,
  QueueName,
} from "@evotrainer/queue";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";

const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const deadRedis = "redis://127.0.0.1:6399";

describe("queues on a real Redis", () => {
  const producerConnection = createProducerConnection(redisUrl);
  const producer = new Producer(producerConnection, prefix);

  afterAll(async () => {
    await producer.close();
    producerConnection.disconnect();
    await deleteKeys(redisUrl, `${prefix}:*`);
  });

  it("enqueues a step once while it is waiting, however often it is enqueued", async () => {
    await producerConnection.connect();
    const payload = { runId: "run1", branchId: "branch1" };
    const first = await producer.enqueue(QueueName.Dispatch, payload);
    const second = await producer.enqueue(QueueName.Dispatch, payload);
    const other = await producer.enqueue(QueueName.Dispatch, { runId: "run1", branchId: "branch2" });
    expect(second).toBe(first);
    expect(other).not.toBe(first);
    const waiting = await producer.queue(QueueName.Dispatch).getWaiting();
    expect(waiting.map((job) => job.data).sort((a, b) => a.branchId.localeCompare(b.branchId))).toEqual([payload, { runId: "run1", branchId: "branch2" }]);
    expect(jobIdFor(QueueName.Dispatch, payload)).toBe("dispatch-branch1-run1");
  });

  it("rejects a payload that does not match the queue's schema, naming the field", async () => {
    // @ts-expect-error: the type system already forbids this; the boundary check must too.
    await expect(producer.enqueue(QueueName.Monitor, { runId: "r", branchId: "b" })).rejects.toThrow(/jobId/);
  });

  it("hands a step to a worker over a worker connection and lets it run again after it finished", async () => {
    const workerConnection = createWorkerConnection(redisUrl);
    const seen: string[] = [];
    const worker = new Worker(
      QueueName.Verdict,
      async (job) => {
        seen.push(job.data.branchId);
        return "done";
      },
      { connection: workerConnection, prefix },
    );
    const events = new QueueEvents(QueueName.Verdict, { connection: createWorkerConnection(redisUrl), prefix });
    await events.waitUntilReady();
    try {
      const payload = { runId: "run1", branchId: "b7" };
      const jobId = await producer.enqueue(QueueName.Verdict, payload);
      const queue = producer.queue(QueueName.Verdict);
      const job = await queue.getJob(jobId);
      expect(await job!.waitUntilFinished(events, 10_000)).toBe("done");
      // Deduplication only holds while the step is pending: a finished step can be enqueued again.
      const again = await producer.enqueue(QueueName.Verdict, payload);
      expect(again).not.toBe(jobId);
      expect(await (await queue.getJob(again))!.waitUntilFinished(events, 10_000)).toBe("done");
      expect(seen).toEqual(["b7", "b7"]);
    } finally {
      await worker.close();
      await events.close();
      workerConnection.disconnect();
    }
  });

  it("makes producers fail fast when Redis is unreachable instead of queueing commands", async () => {
    const connection = createProducerConnection(deadRedis);
    connection.on("error", () => {});
    const queue = new Queue(QueueName.Propose, { connection, prefix });
    queue.on("error", () => {});
    try {
      const started = performance.now();
      await expect(queue.add("propose", { runId: "r", round: 1 })).rejects.toThrow();
      // Generous bound: the point is "an error, not a hang" (a worker connection would wait forever).
      expect(performance.now() - started).toBeLessThan(15_000);
    } finally {
      await queue.close().catch(() => {});
      connection.disconnect();
    }
  });

  it("says which service is down and how to fix it", async () => {
    expect(await pingRedis(redisUrl)).toEqual({ ok: true });
    const down = await pingRedis(deadRedis);
    expect(down.ok).toBe(false);
    expect(down.error).toMatch(/Redis is unreachable at redis:\/\/127\.0\.0\.1:6399 \(connect ECONNREFUSED/);
    expect(down.error).toMatch(/redis-server --daemonize yes/);
    expect(down.error).toMatch(/REDIS_URL/);
  });
});
