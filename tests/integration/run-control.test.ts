import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { appRouter, createCallerFactory, createContext, createLocalUser } from "@evotrainer/api";
import { runConfigSchema } from "@evotrainer/core";
import { createDatabase, createRun } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { RuleBasedProposer } from "@evotrainer/proposers";
import { createProducerConnection, Producer, QueueName } from "@evotrainer/queue";
import { loadWorkerEnv } from "../../apps/worker/src/env.ts";
import { startWorkerApp } from "../../apps/worker/src/worker-app.ts";
import { runCli } from "../support/cli.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";
import { until } from "../support/until.ts";

// Pause, resume, stop and a budget extension of live gym runs trained by the real worker, driven
// through the API as the dashboard and the CLI drive it. Every wait is on state in Postgres or Redis.
// A database of its own: other files' workers re-dispatch every unfinished run of theirs, and on a
// shared one they could act on these runs (a CI run once missed this file's cancellation event).
const database = await createTestDatabase(inject("databaseUrl"));
const databaseUrl = database.url;
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const jobsDir = mkdtempSync(join(tmpdir(), "evo-run-control-"));
const db = createDatabase(databaseUrl);
const connection = createProducerConnection(redisUrl);
const producer = new Producer(connection, prefix);
let worker: Awaited<ReturnType<typeof startWorkerApp>>;
let org: { id: string };
let people: { approver: { id: string }; viewer: { id: string } };

const callerAs = (userId: string) => createCallerFactory(appRouter)(createContext({ db, headers: new Headers(), producer: () => producer, sessionUserId: async () => userId }));

async function statusOf(promise: Promise<unknown>): Promise<number | "ok"> {
  return promise.then(
    () => "ok" as const,
    (error: { code?: string }) => ({ FORBIDDEN: 403, PRECONDITION_FAILED: 412, NOT_FOUND: 404 })[error.code as "FORBIDDEN"] ?? 500,
  );
}

async function startRun(name: string) {
  const config = runConfigSchema.parse({
    ...(parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, unknown>),
    name,
    // Long enough that a job is still running when a control lands, however fast the machine.
    search: { proposals: 2, keep: 1, stepsPerBranch: 400, proposer: "rule", control: "none", acceptUnboundedFalsePromotions: true },
    budget: { gpuSeconds: 3_600, branches: 4, rounds: 3 },
  });
  const created = await createRun(db, config, { organizationId: org.id });
  await producer.enqueue(QueueName.Dispatch, { runId: created.runId, branchId: created.baseBranchId });
  return created;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const runningTrainJob = (runId: string, notBranch?: string) =>
  db.job.findFirst({ where: { kind: "train", state: "running", branch: { runId, ...(notBranch ? { id: { not: notBranch } } : {}) } } });

/** Nothing of this run is waiting, delayed or running in the loop's queues. */
async function queuesIdle(): Promise<boolean> {
  for (const name of [QueueName.Propose, QueueName.Dispatch, QueueName.Monitor, QueueName.Verdict, QueueName.Decide]) {
    const counts = await producer.queue(name).getJobCounts("waiting", "active", "delayed", "prioritized");
    if (Object.values(counts).some((n) => n > 0)) return false;
  }
  return true;
}

beforeAll(async () => {
  await connection.connect();
  org = await db.organization.create({ data: { name: prefix, slug: prefix } });
  const password = "correct horse battery staple";
  people = {
    approver: await createLocalUser(db, { email: `${prefix}-approver@example.test`, name: "Approver", password, organizationId: org.id, role: "approver" }),
    viewer: await createLocalUser(db, { email: `${prefix}-viewer@example.test`, name: "Viewer", password, organizationId: org.id, role: "viewer" }),
  };
  const env = loadWorkerEnv({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_JOBS_DIR: jobsDir, EVO_MONITOR_EVERY_MS: "200", EVO_RECONCILE_EVERY_MS: "600000" });
  worker = await startWorkerApp(env, (lockedEvaluation) => new RuleBasedProposer({ lockedEvaluation }), () => {});
});

afterAll(async () => {
  await worker.shutdown();
  await producer.close();
  connection.disconnect();
  await deleteKeys(redisUrl, `${prefix}:*`);
  await db.$disconnect();
  rmSync(jobsDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  await database.drop();
});

describe("run control", () => {
  it("pause lets the running job finish and starts nothing new; resume goes on; a viewer is refused; a repeat changes nothing", async () => {
    const { runId, baseBranchId } = await startRun("pause-resume");
    const approver = callerAs(people.approver.id);
    const job = await until("the base branch training", () => runningTrainJob(runId));

    expect(await statusOf(callerAs(people.viewer.id).runControl.pause({ runId }))).toBe(403);
    expect(await approver.runControl.pause({ runId })).toMatchObject({ status: "paused", changed: true });
    expect(await approver.runControl.pause({ runId })).toMatchObject({ status: "paused", changed: false });
    expect(await db.event.count({ where: { runId, type: "run_paused" } })).toBe(1);
    expect((await db.event.findFirstOrThrow({ where: { runId, type: "run_paused" } })).actor).toBe(`user:${people.approver.id}`);
    // The timeline names the person; the ledger keeps their id.
    expect((await approver.run.events({ runId })).find((e) => e.type === "run_paused")?.actor).toBe("Approver");

    // The running job finishes and is judged; the loop then waits, however long it is left.
    await until("the base job to finish", async () => (await db.job.findUniqueOrThrow({ where: { id: job.id } })).state === "succeeded");
    await until("the base branch settled", async () => ["promoted", "rejected"].includes((await db.branch.findUniqueOrThrow({ where: { id: baseBranchId } })).status));
    await until("the loop's queues idle", queuesIdle);
    expect(await db.branch.count({ where: { runId } })).toBe(1);
    expect(await db.job.count({ where: { branch: { runId } } })).toBe(1);
    expect((await db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("paused");

    expect(await approver.runControl.resume({ runId })).toMatchObject({ status: "running", changed: true });
    await until("a child branch training after the resume", () => runningTrainJob(runId, baseBranchId));
    expect(await statusOf(approver.runControl.resume({ runId }))).toBe("ok");

    expect(await approver.runControl.stop({ runId, sealed: false })).toMatchObject({ status: "stopping", changed: true });
    await until("the run cancelled", async () => (await db.run.findUniqueOrThrow({ where: { id: runId } })).status === "cancelled");
  }, 300_000);

  it("stop cancels the running job through its executor, then finishes with the sealed evaluation of the best branch", async () => {
    const { runId, baseBranchId } = await startRun("stop-sealed");
    const approver = callerAs(people.approver.id);
    const child = await until("a child branch training", () => runningTrainJob(runId, baseBranchId));
    expect((await db.run.findUniqueOrThrow({ where: { id: runId } })).bestBranchId).toBe(baseBranchId);

    expect(await approver.runControl.stop({ runId, sealed: true })).toMatchObject({ status: "stopping", changed: true });
    expect(await approver.runControl.stop({ runId, sealed: true })).toMatchObject({ changed: false });
    const done = await until("the run completed", async () => {
      const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
      return run.status === "completed" ? run : null;
    });
    expect((done.finalReport as { sealed?: { branchId: string } }).sealed?.branchId).toBe(baseBranchId);
    expect((await db.job.findUniqueOrThrow({ where: { id: child.id } })).state).toBe("cancelled");
    expect(processAlive(Number(child.externalId))).toBe(false);
    expect((await db.branch.findUniqueOrThrow({ where: { id: child.branchId } })).status).toBe("cancelled");
    const cancelled = await db.event.findFirstOrThrow({ where: { runId, type: "job_cancelled" } });
    expect(cancelled.payload).toMatchObject({ jobId: child.id, reason: "the run was stopped" });
    expect(cancelled.actor).toBe(`user:${people.approver.id}`);
    expect(await db.event.count({ where: { runId, type: "run_stopped" } })).toBe(1);
    // Nothing of the run is left running anywhere.
    expect(await db.job.count({ where: { branch: { runId }, state: { in: ["pending", "submitted", "running"] } } })).toBe(0);
    // A stopped run cannot be paused, and stopping it again changes nothing.
    expect(await statusOf(approver.runControl.pause({ runId }))).toBe(412);
    expect(await approver.runControl.stop({ runId, sealed: false })).toMatchObject({ changed: false });
  }, 300_000);

  it("cancels one running job through its executor; its branch is cancelled and the run goes on", async () => {
    const { runId, baseBranchId } = await startRun("cancel-job");
    const approver = callerAs(people.approver.id);
    const job = await until("the base branch training", () => runningTrainJob(runId));
    expect(await statusOf(callerAs(people.viewer.id).runControl.cancelJob({ jobId: job.id }))).toBe(403);
    expect(await approver.runControl.cancelJob({ jobId: job.id })).toMatchObject({ changed: true });
    expect(await approver.runControl.cancelJob({ jobId: job.id })).toMatchObject({ changed: false });
    await until("the job cancelled", async () => (await db.job.findUniqueOrThrow({ where: { id: job.id } })).state === "cancelled");
    expect((await db.branch.findUniqueOrThrow({ where: { id: baseBranchId } })).status).toBe("cancelled");
    // The executor ended the process group: the trainer is gone, not merely marked.
    expect(processAlive(Number(job.externalId))).toBe(false);
    expect((await db.event.findFirstOrThrow({ where: { runId, type: "job_cancelled" } })).actor).toBe(`user:${people.approver.id}`);
    // Nothing was ever promoted, so the run ends: it does not wait on a job that is gone.
    await until("the run over", async () => (await db.run.findUniqueOrThrow({ where: { id: runId } })).status === "failed");
    expect(await approver.runControl.cancelJob({ jobId: job.id })).toMatchObject({ changed: false, message: "the job is already cancelled" });
  }, 300_000);

  it("extends a budget to a new total, once; a lower total is refused", async () => {
    const { runId } = await startRun("budget");
    const approver = callerAs(people.approver.id);
    expect(await approver.runControl.extendBudget({ runId, gpuSeconds: 7_200 })).toMatchObject({ changed: true });
    expect(await approver.runControl.extendBudget({ runId, gpuSeconds: 7_200 })).toMatchObject({ changed: false });
    expect(await statusOf(approver.runControl.extendBudget({ runId, gpuSeconds: 60 }))).toBe(412);
    expect(await statusOf(callerAs(people.viewer.id).runControl.extendBudget({ runId, gpuSeconds: 9_000 }))).toBe(403);
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    expect((run.settings as { budget: { gpuSeconds: number } }).budget.gpuSeconds).toBe(7_200);
    expect((run.budget as { gpuSeconds: number }).gpuSeconds).toBe(7_200);
    expect((await db.event.findFirstOrThrow({ where: { runId, type: "budget_extended" } })).payload).toMatchObject({ previous: 3_600, gpuSeconds: 7_200 });
    // The CLI beside the database, as the key's owner: the same procedure, the same answers.
    const { key } = await approver.apiKey.create({ name: "cli" });
    const env = { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_API_KEY: key };
    const extended = await runCli(["extend-budget", runId, "9000"], env);
    expect(extended.stdout, extended.stderr).toContain(`run ${runId} budget extended`);
    const lower = await runCli(["extend-budget", runId, "10"], env);
    expect(lower.code).toBe(1);
    expect(lower.stderr).toContain("extend-budget refused: 10 GPU-seconds is below the current budget of 9000");
    expect((await runCli(["stop", runId, "--skip-sealed"], env)).stdout).toContain("stopping");
    await until("the run cancelled", async () => (await db.run.findUniqueOrThrow({ where: { id: runId } })).status === "cancelled");
  }, 300_000);
});
