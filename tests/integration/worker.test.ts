import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { afterAll, describe, expect, inject, it } from "vitest";
import { QueueEvents } from "bullmq";
import { parse } from "yaml";
import { runConfigSchema } from "@evotrainer/core";
import { createDatabase, createRun } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { createWorkerConnection, QueueName } from "@evotrainer/queue";
import { RuleBasedProposer } from "@evotrainer/proposers";
import { loadWorkerEnv } from "../../apps/worker/src/env.ts";
import { startWorkerApp } from "../../apps/worker/src/worker-app.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";

const redisUrl = inject("redisUrl");
// A database of its own: runs of test files running beside this one change status while it counts.
const database = await createTestDatabase(inject("databaseUrl"));
const databaseUrl = database.url;
const prefix = testPrefix();

describe("the worker process", () => {
  afterAll(async () => {
    await deleteKeys(redisUrl, `${prefix}:*`);
    await database.drop();
  });

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
    // One run the sweep keeps moving (finishing, its sealed evaluation not created: nothing to enqueue)
    // and one it leaves alone (paused).
    const db = createDatabase(databaseUrl);
    const org = await db.organization.create({ data: { name: prefix, slug: prefix } });
    const config = runConfigSchema.parse(parse(readFileSync("examples/gym-math.yaml", "utf8")));
    for (const status of ["finishing", "paused"] as const) {
      const { runId } = await createRun(db, config, { organizationId: org.id });
      await db.branch.updateMany({ where: { runId }, data: { status: "promoted" } });
      await db.run.update({ where: { id: runId }, data: { status } });
    }
    await db.$disconnect();
    const app = await startWorkerApp(env, (lockedEvaluation) => new RuleBasedProposer({ lockedEvaluation }), (line) => logs.push(line));
    try {
      expect(await completed).toMatchObject({ activeRuns: 1, enqueued: 0 });
      expect(app.registry.queues).toEqual([QueueName.Propose, QueueName.Dispatch, QueueName.Monitor, QueueName.Verdict, QueueName.Decide, QueueName.Control, QueueName.Reconcile, QueueName.Notify, QueueName.Search, QueueName.TrainerArgs]);
    } finally {
      await app.shutdown();
      await events.close();
    }
    expect(logs.at(-1)).toBe("worker: stopped");
  });

  it("started while Redis is down, waits for it, saying so once, and takes jobs once it answers", async () => {
    const probe = createServer().listen(0, "127.0.0.1");
    await once(probe, "listening");
    const port = (probe.address() as { port: number }).port;
    probe.close();
    const logs: string[] = [];
    let saidDown: () => void = () => {};
    const down = new Promise<void>((resolve) => (saidDown = resolve));
    const log = (line: string) => {
      logs.push(line);
      if (line.startsWith(`Redis at 127.0.0.1:${port} is unreachable`)) saidDown();
    };
    const env = loadWorkerEnv({ DATABASE_URL: databaseUrl, REDIS_URL: `redis://127.0.0.1:${port}`, EVO_QUEUE_PREFIX: `${prefix}-late` });
    const starting = startWorkerApp(env, (lockedEvaluation) => new RuleBasedProposer({ lockedEvaluation }), log);
    await down;
    const redis = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
    try {
      const app = await starting;
      await app.shutdown();
    } finally {
      redis.kill();
      await once(redis, "exit");
    }
    expect(logs.filter((line) => line.includes("is unreachable"))).toEqual([
      `Redis at 127.0.0.1:${port} is unreachable; waiting for it before taking jobs (connect ECONNREFUSED 127.0.0.1:${port})`,
    ]);
    expect(logs).toContain(`Redis at 127.0.0.1:${port} answers again; carrying on`);
    expect(logs.some((line) => line.startsWith("worker: listening on"))).toBe(true);
  });
});
