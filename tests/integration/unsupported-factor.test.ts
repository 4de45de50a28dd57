import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { createDatabase, type RunReport } from "@evotrainer/db";
import { createTestDatabase } from "@evotrainer/db/testing";
import { RuleBasedProposer } from "@evotrainer/proposers";
import { loadWorkerEnv } from "../../apps/worker/src/env.ts";
import { startWorkerApp } from "../../apps/worker/src/worker-app.ts";
import { runCli } from "../support/cli.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";

// A database of its own: a worker's reconcile re-dispatches every unfinished run of its database, so
// on the shared one this file's worker could launch other files' jobs into its jobs directory (a CI
// run once found it still being written to when the cleanup below removed it).
const database = await createTestDatabase(inject("databaseUrl"));
const databaseUrl = database.url;
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const dir = mkdtempSync(join(tmpdir(), "evo-unsupported-"));
const cli = (args: string[]) => runCli(args, { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix });

describe("a factor the run's trainer refuses, reaching dispatch anyway", () => {
  afterAll(async () => {
    await deleteKeys(redisUrl, `${prefix}:*`);
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    await database.drop();
  });

  it("fails its branch once, with an event naming the factor and the adapter, and the run ends", async () => {
    // Proposals are dry-rendered before they become branches (offered-factors.test.ts, plan-round.test.ts), so only
    // a base recipe can still reach dispatch unrendered: here it asks TRL for dynamic sampling, and dispatch's defence fails it.
    const example = parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, any>;
    const config = {
      ...example,
      name: "unsupported-factor",
      basePolicy: "/models/none",
      recipe: { ...example.recipe, data: { ...example.recipe.data, dynamicSampling: { enabled: true, maxResampleRounds: 3 } } },
      adapter: "trl",
      resources: { gpusPerJob: 0 },
      trainer: { dataset: "/data/train.jsonl" },
    };
    const file = join(dir, "run.yaml");
    writeFileSync(file, JSON.stringify(config));
    const env = loadWorkerEnv({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, EVO_QUEUE_PREFIX: prefix, EVO_JOBS_DIR: join(dir, "jobs"), EVO_MONITOR_EVERY_MS: "200", EVO_RECONCILE_EVERY_MS: "1000" });
    const worker = await startWorkerApp(env, (lockedEvaluation) => new RuleBasedProposer({ lockedEvaluation }), () => {});
    let result: Awaited<ReturnType<typeof cli>>;
    try {
      result = await cli(["run", file, "--wait", "--json"]);
    } finally {
      await worker.shutdown();
    }
    const report = JSON.parse(result.stdout) as RunReport;
    // With its only branch failed the run ends failed, and `run --wait` says so.
    expect(report.status, result.stderr).toBe("failed");
    expect(result.code).toBe(1);
    expect(report.branches.map((b) => b.status)).toEqual(["failed"]);
    // Why, in the report and as the CLI prints it: before, only the events said, and the run_finished one said "no branch was ever promoted".
    const why = "every branch failed (1); v0 (the base): config_error: trl cannot run recipe factor data.dynamicSampling";
    expect(report.error).toContain(why);
    const printed = await cli(["report", report.runId]);
    expect(printed.stdout).toContain(`no result: ${why}`);

    const db = createDatabase(databaseUrl);
    try {
      const jobs = await db.job.findMany({ where: { branch: { runId: report.runId } } });
      expect(jobs).toMatchObject([{ kind: "train", state: "failed", failureClass: "config_error", attempts: 0 }]);
      const failures = await db.event.findMany({ where: { runId: report.runId, type: "failure" } });
      expect(failures).toHaveLength(1);
      expect(failures[0]!.payload).toMatchObject({ factor: "data.dynamicSampling", adapter: "trl", failureClass: "config_error", message: expect.stringContaining("trl cannot run recipe factor data.dynamicSampling") });
    } finally {
      await db.$disconnect();
    }
  }, 30_000);
});
