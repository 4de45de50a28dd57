import { once } from "node:events";
import { DelayedError, Queue, type Job } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, describe, expect, inject, it } from "vitest";
import { WorkerRegistry } from "../../apps/worker/src/registry.ts";
import { QueueName } from "@evotrainer/queue";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";
import { until } from "../support/until.ts";

// Real Redis and BullMQ. A step that looks again later (monitor, dispatch) moves its own job to
// delayed; a lock renewal that BullMQ had already started for it then fails. Each job below waits,
// inside its step, for BullMQ's own lockRenewalFailed event, so the race happens on every run.
const redisUrl = inject("redisUrl");
const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
const prefix = testPrefix();
const said: string[] = [];
const registry = new WorkerRegistry(connection, prefix, (line) => said.push(line));
const queue = new Queue(QueueName.Monitor, { connection, prefix });

describe("the worker's log on a failed lock renewal", () => {
  afterAll(async () => {
    await registry.close();
    await queue.close();
    connection.disconnect();
    await deleteKeys(redisUrl, `${prefix}:*`);
  });

  it("says nothing when the step moved its own job to delayed, and names a job still active whose lock was lost", async () => {
    let delayedStepEnded = false;
    let worker: ReturnType<WorkerRegistry["register"]> | undefined;
    const renewalFailed = () => once(worker!, "lockRenewalFailed");
    worker = registry.register(
      QueueName.Monitor,
      async (job: Job, token?: string) => {
        if (job.data.lose) {
          // Its lock taken from it while it is still active, as a stalled process's would be.
          const failed = renewalFailed();
          await connection.del(`${prefix}:${QueueName.Monitor}:${job.id}:lock`);
          await failed;
          return "done";
        }
        const failed = renewalFailed();
        await job.moveToDelayed(Date.now() + 3_600_000, token);
        await failed;
        delayedStepEnded = true;
        throw new DelayedError();
      },
      1,
    );
    const delayed = await queue.add("step", { lose: false });
    await until("the delayed step to end", async () => delayedStepEnded && (await delayed.getState()) === "delayed");
    const lost = await queue.add("step", { lose: true });
    await until("the lost lock to be said", async () => said.some((line) => line.includes(`job ${lost.id} lost its lock`)));
    expect(said.join("\n")).not.toContain(`job ${delayed.id}`);
    expect(said.join("\n")).not.toContain("could not renew lock");
  }, 120_000);
});
