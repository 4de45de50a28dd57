import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { expect, test } from "@playwright/test";
import { parse } from "yaml";
import { runConfigSchema } from "@evotrainer/core";
import { createDatabase, type Database } from "@evotrainer/db";
import { createTestDatabase, type TestDatabase } from "@evotrainer/db/testing";
import { startDashboard, type DashboardProcess } from "../support/dashboard-process.ts";
import { freePort, ownPostgres, ownRedis, type OwnPostgres, type OwnRedis } from "../support/own-services.ts";
import { runTables } from "../support/run-tables.ts";
import { testPrefix } from "../support/redis-prefix.ts";
import { until } from "../support/until.ts";
import { enqueueRun, killWorker, startWorkerProcess } from "../support/worker-process.ts";

// The worker and the dashboard's server over services of this spec's own: stopping them touches no
// other spec. An end-to-end spec because the dashboard's server is the production build's.
let postgres: OwnPostgres;
let redis: OwnRedis;
let database: TestDatabase;
let db: Database;
let scratch: string;
// Longer than this, PostgreSQL stays away: the worker's reconcile sweep meets it gone at least once.
const RECONCILE_MS = 1_000;

const base = parse(readFileSync("examples/gym-swe.yaml", "utf8")) as Record<string, unknown>;
const config = runConfigSchema.parse({
  ...base,
  name: "outages",
  search: { proposals: 2, keep: 1, stepsPerBranch: 16, proposer: "rule" },
  budget: { gpuSeconds: 100_000, branches: 2, rounds: 2 },
});

/** The answer, or false while this test's own queries cannot reach the service either. */
const tolerant = <T,>(get: () => Promise<T>) => async () => {
  try {
    return await get();
  } catch {
    return false as const;
  }
};

const settled = (runId: string) =>
  tolerant(async () => {
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    if (!["completed", "failed"].includes(run.status)) return false;
    return (await db.event.count({ where: { runId, type: "retention_applied", payload: { path: ["trigger"], equals: "run_end" } } })) > 0;
  });

async function health(url: string): Promise<{ status: number; body: { postgres?: string; redis?: string; reason?: string; errors?: string[] } } | null> {
  try {
    const response = await fetch(url);
    return { status: response.status, body: (await response.json()) as { postgres?: string; redis?: string; errors?: string[] } };
  } catch {
    return null;
  }
}

const outageMs = () => new Promise((resolve) => setTimeout(resolve, RECONCILE_MS * 2.5));

test.describe("PostgreSQL and Redis of a spec's own, failed under a live gym run: the worker and the dashboard's server live through each, and the run ends as an undisturbed one", () => {
  const workers: ChildProcess[] = [];
  let dashboard: DashboardProcess | undefined;
  test.beforeAll(async () => {
    postgres = await ownPostgres();
    redis = await ownRedis();
    database = await createTestDatabase(postgres.url);
    db = createDatabase(database.url);
    scratch = mkdtempSync(join(tmpdir(), "evo-outages-"));
  });
  test.afterAll(async () => {
    for (const worker of workers) await killWorker(worker);
    await dashboard?.stop();
    await db.$disconnect();
    await redis.stop();
    postgres.remove();
    rmSync(scratch, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  test("through terminated backends, a PostgreSQL restart and outage, a Redis restart empty and outage: same PIDs, both healths 503 then 200, every table as undisturbed", async () => {
    test.setTimeout(1_200_000);
    const worker = (prefix: string, healthPort?: number) => {
      const started = startWorkerProcess({
        databaseUrl: database.url,
        redisUrl: redis.url,
        prefix,
        jobsDir: join(scratch, "jobs"),
        logFile: join(scratch, `${prefix}.log`),
        env: { EVO_RECONCILE_EVERY_MS: String(RECONCILE_MS), ...(healthPort ? { EVO_WORKER_HEALTH_PORT: String(healthPort) } : {}) },
      });
      workers.push(started);
      return started;
    };

    const calm = testPrefix();
    const calmWorker = worker(calm);
    const calmRun = (await enqueueRun(db, redis.url, calm, config)).runId;
    await until("the undisturbed run", settled(calmRun), 600_000);
    await killWorker(calmWorker);
    const expected = await runTables(db, calmRun);

    const stormy = testPrefix();
    const port = await freePort();
    const healthUrl = `http://127.0.0.1:${port}/health`;
    const stormyWorker = worker(stormy, port);
    const pid = stormyWorker.pid;
    const stormyRun = (await enqueueRun(db, redis.url, stormy, config)).runId;
    dashboard = await startDashboard({ DATABASE_URL: database.url, REDIS_URL: redis.url, EVO_QUEUE_PREFIX: stormy });
    const server = dashboard.process;
    const serverPid = server.pid;
    const serverHealthUrl = `${dashboard.baseURL}/api/health`;
    const healthy = async () => {
      await until("the worker's health to answer 200", async () => (await health(healthUrl))?.status === 200, 120_000);
      await until("the dashboard's health to answer 200", async () => (await health(serverHealthUrl))?.status === 200, 120_000);
    };
    const unhealthy = async (service: "postgres" | "redis") => {
      const worker = await until(`the worker's health to answer 503 with ${service} down`, async () => {
        const answer = await health(healthUrl);
        return answer?.status === 503 && answer.body[service] === "down" && answer;
      });
      const server = await until(`the dashboard's health to answer 503 with ${service} unreachable`, async () => {
        const answer = await health(serverHealthUrl);
        return answer?.status === 503 && answer.body[service] === "unreachable" && answer;
      });
      return { worker, server };
    };
    await healthy();
    await until("the run to be training", tolerant(async () => (await db.rollout.count({ where: { runId: stormyRun } })) > 0), 300_000);
    const log: string[] = [];
    const at = async (what: string) => log.push(`${what} at ${await tolerant(() => db.rollout.count({ where: { runId: stormyRun } }))()} rollouts`);

    const statusAtFirstOutage = (await db.run.findUniqueOrThrow({ where: { id: stormyRun } })).status;

    // 1. Every backend of the database ended, as pg_terminate_backend or a failover ends them.
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [database.name]);
    await admin.end();
    await at("backends terminated");
    await healthy();

    // 2. PostgreSQL restarted.
    postgres.restart();
    await at("PostgreSQL restarted");
    await healthy();

    // 3. PostgreSQL away for longer than a reconcile period.
    postgres.stop();
    const postgresDown = await unhealthy("postgres");
    await outageMs();
    postgres.start();
    await at("PostgreSQL back");
    await healthy();

    // 4. Redis restarted, empty.
    await redis.stop();
    await redis.start();
    await at("Redis restarted empty");
    await healthy();

    // 5. Redis away, then back empty.
    await redis.stop();
    const redisDown = await unhealthy("redis");
    await outageMs();
    await redis.start();
    await at("Redis back empty");
    await healthy();

    await until("the disturbed run", settled(stormyRun), 600_000);
    console.log(`outages: ${log.join("; ")}`);
    const disturbed = await runTables(db, stormyRun);
    const said = readFileSync(join(scratch, `${stormy}.log`), "utf8");

    // The same process lived through all of it.
    expect(stormyWorker.exitCode).toBeNull();
    expect(stormyWorker.signalCode).toBeNull();
    expect(stormyWorker.pid).toBe(pid);
    expect(server.exitCode).toBeNull();
    expect(server.signalCode).toBeNull();
    expect(server.pid).toBe(serverPid);
    expect(postgresDown.server.body.errors?.join(" ")).toMatch(/PostgreSQL/);
    expect(redisDown.server.body.errors?.join(" ")).toMatch(/^Redis is unreachable at redis:\/\/127\.0\.0\.1:\d+ /);
    expect(postgresDown.worker.body.reason).toMatch(/^PostgreSQL at 127\.0\.0\.1:\d+ is unreachable/);
    expect(redisDown.worker.body.reason).toMatch(/Redis at 127\.0\.0\.1:\d+ is unreachable/);
    // Said in its log, with what it does meanwhile, and when it carries on.
    expect(said).toMatch(/PostgreSQL at 127\.0\.0\.1:\d+\/\w+ is unreachable; /);
    expect(said).toMatch(/PostgreSQL at 127\.0\.0\.1:\d+\/\w+ answers again/);
    expect(said).toMatch(/Redis at 127\.0\.0\.1:\d+ is unreachable; /);
    expect(said).toMatch(/Redis at 127\.0\.0\.1:\d+ answers again/);
    // No step spent an attempt on an outage, and no stack was printed for one.
    expect(said).not.toMatch(/failed \(attempt/);
    expect(said).not.toMatch(/^\s*at |^Error: /m);
    // The outages came while the run was under way, not after it ended.
    expect(statusAtFirstOutage).toBe("running");
    expect(expected.status).toBe("completed");
    for (const key of Object.keys(expected) as (keyof typeof expected)[]) expect.soft(disturbed[key], key).toEqual(expected[key]);
  });
});
