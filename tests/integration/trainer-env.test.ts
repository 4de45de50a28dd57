import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { gymAdapter, trlAdapter, verlAdapter } from "@evotrainer/adapters";
import { runConfigSchema } from "@evotrainer/core";
import { createDatabase, createRun } from "@evotrainer/db";
import { LabelerPool } from "@evotrainer/db/ingest";
import { createTestDatabase } from "@evotrainer/db/testing";
import { RuleBasedProposer } from "@evotrainer/proposers";
import { createProducerConnection, Producer, QueueName } from "@evotrainer/queue";
import { ExecutorPool } from "../../apps/worker/src/executors/executor-pool.ts";
import type { LoopDeps } from "../../apps/worker/src/loop/deps.ts";
import { dispatch } from "../../apps/worker/src/loop/dispatch.ts";
import { HarnessCache } from "../../apps/worker/src/loop/harness-cache.ts";
import { deleteKeys, testPrefix } from "../support/redis-prefix.ts";

// trainer.env through the real dispatch step and the local executor: the job's "python" is a script
// that writes the environment it was started with, so what the trainer would see is read back.
const database = await createTestDatabase(inject("databaseUrl"));
const redisUrl = inject("redisUrl");
const prefix = testPrefix();
const dir = mkdtempSync(join(tmpdir(), "evo-trainer-env-"));
const python = join(dir, "python");
writeFileSync(python, "#!/bin/sh\nenv > seen-env.txt\n", { mode: 0o755 });
const db = createDatabase(database.url);
const pool = new pg.Pool({ connectionString: database.url, max: 2 });
const connection = createProducerConnection(redisUrl);
const producer = new Producer(connection, prefix);
const labelers = new LabelerPool(1);

describe("trainer.env reaches the job's process", () => {
  afterAll(async () => {
    await labelers.close();
    await producer.close();
    connection.disconnect();
    await deleteKeys(redisUrl, `${prefix}:*`);
    await pool.end();
    await db.$disconnect();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("passes literals and the worker's variables, and fails the branch naming a variable the worker lacks, never logging values", async () => {
    const org = await db.organization.create({ data: { name: prefix, slug: prefix } });
    const example = parse(readFileSync("examples/trl-math.yaml", "utf8")) as Record<string, unknown>;
    const runWith = async (name: string, env: Record<string, unknown>) => {
      const config = runConfigSchema.parse({ ...example, name, executor: "local", resources: { gpusPerJob: 0 }, trainer: { python, dataset: "/data/train.jsonl", env } });
      return createRun(db, config, { organizationId: org.id });
    };
    const executors = new ExecutorPool(db, join(dir, "jobs"), process.env, () => {});
    const logged: string[] = [];
    const deps: LoopDeps = {
      db,
      pool,
      producer,
      executors,
      adapters: { gym: gymAdapter(), verl: verlAdapter(), trl: trlAdapter() },
      proposerFor: (lockedEvaluation) => new RuleBasedProposer({ lockedEvaluation }),
      harnesses: new HarnessCache(db),
      labelers,
      log: (line) => logged.push(line),
      monitorEveryMs: 60_000,
      heartbeatStaleMs: 60_000,
      failpoint: async () => {},
    };
    const secret = `hf_${prefix}_secret`;
    process.env.EVO_TEST_HF_TOKEN = secret;
    try {
      const { runId, baseBranchId } = await runWith("env passed", { HF_HUB_OFFLINE: "1", HF_TOKEN: { fromWorker: "EVO_TEST_HF_TOKEN" } });
      expect(await dispatch(deps, { runId, branchId: baseBranchId })).toBe("launched");
      const job = await db.job.findFirstOrThrow({ where: { branchId: baseBranchId } });
      const seen = join(dir, "jobs", job.id, "seen-env.txt");
      // The script has ended once the executor has its exit code.
      const handle = { executor: "local" as const, externalId: job.externalId!, workDir: job.outputUri! };
      while ((await executors.local.observe(handle)).state === "running") await new Promise((resolve) => setTimeout(resolve, 50));
      const env = Object.fromEntries(readFileSync(seen, "utf8").trim().split("\n").map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]));
      expect(env).toMatchObject({ HF_HUB_OFFLINE: "1", HF_TOKEN: secret, PYTHONUNBUFFERED: "1" });
      // The secret is in no file the control plane wrote, no event and no log line: only its name is.
      expect(readFileSync(join(dir, "jobs", job.id, "job.json"), "utf8")).not.toContain(secret);
      expect(readFileSync(join(dir, "jobs", job.id, "job.json"), "utf8")).toContain("EVO_TEST_HF_TOKEN");
      expect(JSON.stringify((await db.event.findMany({ where: { runId } })).map((e) => e.payload))).not.toContain(secret);
      expect(logged.join("\n")).not.toContain(secret);

      const missing = await runWith("env missing", { HF_TOKEN: { fromWorker: "EVO_TEST_NOT_SET" } });
      expect(await dispatch(deps, { runId: missing.runId, branchId: missing.baseBranchId })).toMatch(/^cannot be launched: trainer\.env\.HF_TOKEN asks for the worker's EVO_TEST_NOT_SET/);
      expect(await db.branch.findUniqueOrThrow({ where: { id: missing.baseBranchId } })).toMatchObject({ status: "failed" });
      expect((await db.event.findFirstOrThrow({ where: { runId: missing.runId, type: "failure" } })).payload).toMatchObject({ failureClass: "config_error", setting: "trainer.env" });
    } finally {
      delete process.env.EVO_TEST_HF_TOKEN;
      await executors.close();
    }
  }, 120_000);
});
