import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse, stringify } from "yaml";
import { ACTIVE_JOB_STATES, isSettledRun } from "@evotrainer/core";
import { createDatabase } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { RuleBasedProposer } from "@evotrainer/proposers";
import { loadWorkerEnv } from "../../apps/worker/src/env.ts";
import { startWorkerApp } from "../../apps/worker/src/worker-app.ts";
import { runCli } from "../support/cli.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";
import { until } from "../support/until.ts";

// Real gym runs trained by the real worker write their checkpoints under EVO_JOBS_DIR; retention
// then deletes the weights of branches that were neither promoted nor best, on `evotrainer gc --yes`
// or by the worker once the run has ended. A database of its own, as every file that starts a worker has.
const database = await createTestDatabase(inject("databaseUrl"));
const databaseUrl = database.url;
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const dir = mkdtempSync(join(tmpdir(), "evo-retention-"));
const jobsDir = join(dir, "jobs");
const db = createDatabase(databaseUrl);
const workerEnv = (retention: "after-run" | "manual") =>
  loadWorkerEnv({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_JOBS_DIR: jobsDir, EVO_MONITOR_EVERY_MS: "200", EVO_RECONCILE_EVERY_MS: "1000", EVO_RETENTION: retention });
const startWorker = (retention: "after-run" | "manual") => startWorkerApp(workerEnv(retention), (lockedEvaluation) => new RuleBasedProposer({ lockedEvaluation }), () => {});

const cli = async (args: string[]) => {
  const result = await runCli(args, { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, XDG_CONFIG_HOME: dir });
  expect(result.code, `evotrainer ${args.join(" ")}: ${result.stderr}`).toBe(0);
  return result.stdout;
};

/** Each trained branch of a run: its status, whether it is the best, and its local job's checkpoints dir. */
async function trainedBranches(runId: string) {
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, include: { branches: { include: { jobs: { where: { kind: "train", outputUri: { not: null } } } } } } });
  return run.branches
    .filter((b) => b.jobs.length > 0)
    .map((b) => ({
      id: b.id,
      version: b.version,
      status: b.status,
      kept: b.id === run.bestBranchId || b.status === "promoted",
      checkpoints: b.jobs.map((j) => join(j.outputUri!, "output", "checkpoints")),
      metrics: b.jobs.map((j) => join(j.outputUri!, "output", "metrics.jsonl")),
    }));
}

async function endedWithNoJobRunning(runId: string): Promise<boolean> {
  if (!isSettledRun((await db.run.findUniqueOrThrow({ where: { id: runId } })).status)) return false;
  return (await db.job.count({ where: { branch: { runId }, state: { in: [...ACTIVE_JOB_STATES] } } })) === 0;
}

describe("job directories have a retention policy: weights of branches neither promoted nor best are deleted", () => {
  afterAll(async () => {
    await deleteKeys(redisUrl, `${prefix}:*`);
    await db.$disconnect();
    await database.drop();
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  it("`evotrainer gc` lists what it would delete with sizes, `--yes` deletes it with progress; after a run the worker does it by itself", async () => {
    const base = parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, unknown>;
    const configFile = join(dir, "run.yaml");
    writeFileSync(configFile, stringify({ ...base, name: "retention", search: { proposals: 2, keep: 1, stepsPerBranch: 12, proposer: "rule" }, budget: { gpuSeconds: 900, branches: 2, rounds: 2 } }));

    // Two runs under a worker that leaves retention to `gc`.
    let worker = await startWorker("manual");
    let runA: string;
    let runB: string;
    try {
      runA = (JSON.parse(await cli(["run", configFile, "--json"])) as { runId: string }).runId;
      runB = (JSON.parse(await cli(["run", configFile, "--json"])) as { runId: string }).runId;
      await until("both runs ended with no job running", async () => (await endedWithNoJobRunning(runA)) && (await endedWithNoJobRunning(runB)));
    } finally {
      await worker.shutdown();
    }
    const branchesA = await trainedBranches(runA);
    const branchesB = await trainedBranches(runB);
    console.log([...branchesA, ...branchesB].map((b) => `v${b.version} ${b.status}${b.kept ? " (kept)" : ""}`).join(", "));
    for (const b of [...branchesA, ...branchesB]) for (const path of b.checkpoints) expect(existsSync(path), `v${b.version} trained and saved weights`).toBe(true);
    const goneA = branchesA.filter((b) => !b.kept);
    expect(goneA.length, "a settled branch that was neither promoted nor best (a control, a rejected candidate)").toBeGreaterThan(0);
    expect(branchesA.some((b) => b.kept)).toBe(true);

    // The dry run lists each of them, with its size, in both runs, and deletes nothing.
    const dry = await cli(["gc"]);
    for (const b of goneA) for (const path of b.checkpoints) expect(dry).toMatch(new RegExp(`would delete\\s+[\\d.]+ (B|KiB|MiB)\\s+run retention \\(${runA}\\) v${b.version}\\s+${path}`));
    for (const b of branchesA.filter((x) => x.kept)) for (const path of b.checkpoints) expect(dry).not.toContain(path);
    expect(dry).toContain(runB);
    expect(dry).toMatch(/run again with --yes/);
    for (const b of [...branchesA, ...branchesB]) for (const path of b.checkpoints) expect(existsSync(path)).toBe(true);
    expect(await db.event.count({ where: { type: "retention_applied" } })).toBe(0);

    // --yes on run A: its unkept weights go, one progress line each; its kept ones, its metrics and run B stay.
    const yes = await cli(["gc", runA, "--yes"]);
    const removed = goneA.flatMap((b) => b.checkpoints);
    expect(yes.split("\n").filter((line) => /^\[\d+\/\d+\] deleted /.test(line))).toHaveLength(removed.length);
    expect(yes).toContain(`[${removed.length}/${removed.length}] deleted`);
    for (const path of removed) expect(existsSync(path), path).toBe(false);
    for (const b of branchesA.filter((x) => x.kept)) for (const path of b.checkpoints) expect(existsSync(path), `kept v${b.version}`).toBe(true);
    for (const b of branchesA) for (const path of b.metrics) expect(existsSync(path), `metrics of v${b.version}`).toBe(true);
    for (const b of branchesB) for (const path of b.checkpoints) expect(existsSync(path)).toBe(true);
    const gcEvent = await db.event.findFirstOrThrow({ where: { runId: runA, type: "retention_applied" } });
    const admin = await db.user.findUniqueOrThrow({ where: { email: "admin@evotrainer.local" } });
    expect(gcEvent.actor).toBe(`user:${admin.id}`);
    const gcPayload = gcEvent.payload as { trigger: string; bytes: number; deleted: { branchId: string; path: string; bytes: number }[] };
    expect(gcPayload.trigger).toBe("gc");
    expect(gcPayload.deleted.map((d) => d.path).sort()).toEqual([...removed].sort());
    expect(gcPayload.bytes).toBeGreaterThan(0);
    expect(gcPayload.bytes).toBe(gcPayload.deleted.reduce((sum, d) => sum + d.bytes, 0));
    expect(await cli(["gc", runA])).toContain("nothing to delete");
    // The report says whose weights retention deleted.
    const report = JSON.parse(await cli(["report", runA, "--json"])) as { branches: { id: string; weightsDeleted: { bytes: number } | null }[] };
    for (const b of report.branches.filter((x) => branchesA.some((t) => t.id === x.id))) {
      expect(b.weightsDeleted !== null, `branch ${b.id}`).toBe(goneA.some((g) => g.id === b.id));
    }
    expect((await cli(["report", runA])).split("\n").filter((line) => line.includes("weights deleted by retention"))).toHaveLength(goneA.length);

    // A worker that applies retention after the run: run B's unkept weights go at its next sweep, run A has nothing left.
    worker = await startWorker("after-run");
    try {
      const event = await until("the worker applied retention to run B", () => db.event.findFirst({ where: { runId: runB, type: "retention_applied" } }));
      expect(event.actor).toBe("system");
      const payload = event.payload as { trigger: string; deleted: { path: string }[] };
      expect(payload.trigger).toBe("run_end");
      const goneB = branchesB.filter((b) => !b.kept).flatMap((b) => b.checkpoints);
      expect(payload.deleted.map((d) => d.path).sort()).toEqual([...goneB].sort());
      for (const path of goneB) expect(existsSync(path), path).toBe(false);
      for (const b of branchesB.filter((x) => x.kept)) for (const path of b.checkpoints) expect(existsSync(path), `kept v${b.version}`).toBe(true);
      const afterA = await until("the worker marked run A too", () => db.event.findFirst({ where: { runId: runA, type: "retention_applied", payload: { path: ["trigger"], equals: "run_end" } } }));
      expect((afterA.payload as { deleted: unknown[] }).deleted).toEqual([]);
    } finally {
      await worker.shutdown();
    }
  }, 600_000);
});
