import { afterAll, describe, expect, inject, it } from "vitest";
import { QueueEvents } from "bullmq";
import { createDatabase } from "@evotrainer/db";
import { createWorkerConnection, QueueName } from "@evotrainer/queue";
import { RuleBasedProposer } from "@evotrainer/proposers";
import { loadWorkerEnv } from "../../apps/worker/src/env.ts";
import { startWorkerApp } from "../../apps/worker/src/worker-app.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";

const redisUrl = inject("redisUrl");
const databaseUrl = inject("databaseUrl");
const prefix = testPrefix();

describe("the worker process", () => {
  afterAll(() => deleteKeys(redisUrl, `${prefix}:*`));

  it("validates its environment with messages that say what to set", () => {
    expect(() => loadWorkerEnv({ DATABASE_URL: "mysql://x", REDIS_URL: "http://y" })).toThrow(
      /DATABASE_URL must be a postgresql:\/\/ connection string[\s\S]*REDIS_URL must be a redis:\/\/ URL/,
    );
    expect(loadWorkerEnv({}).REDIS_URL).toBe("redis://127.0.0.1:6379");
  });

  it("runs the reconcile sweep on its job scheduler against Postgres and shuts down cleanly", async () => {
    const logs: string[] = [];
    const env = loadWorkerEnv({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_RECONCILE_EVERY_MS: "1000" });
    const events = new QueueEvents(QueueName.Reconcile, { connection: createWorkerConnection(redisUrl), prefix });
    await events.waitUntilReady();
    const completed = new Promise<unknown>((resolve) => events.once("completed", ({ returnvalue }) => resolve(returnvalue)));
    const app = await startWorkerApp(env, (lockedEvaluation) => new RuleBasedProposer({ lockedEvaluation }), (line) => logs.push(line));
    try {
      const db = createDatabase(databaseUrl);
      const expectedRuns = await db.run.count({ where: { status: "running" } });
      await db.$disconnect();
      expect(await completed).toMatchObject({ activeRuns: expectedRuns });
      expect(app.registry.queues).toEqual([QueueName.Propose, QueueName.Dispatch, QueueName.Monitor, QueueName.Verdict, QueueName.Decide, QueueName.Reconcile]);
    } finally {
      await app.shutdown();
      await events.close();
    }
    expect(logs.at(-1)).toBe("worker: stopped");
  });
});
