import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { runConfigSchema } from "@evotrainer/core";
import { createRun } from "@evotrainer/db";
import { ExecutorPool } from "../../apps/worker/src/executors/executor-pool.ts";
import { dispatch } from "../../apps/worker/src/loop/dispatch.ts";
import { loopHarness } from "../support/loop-harness.ts";

// trainer.env through the real dispatch step and the local executor: the job's "python" is a script
// that writes the environment it was started with, so what the trainer would see is read back.
const redisUrl = inject("redisUrl");
const harness = await loopHarness(inject("databaseUrl"), redisUrl);
const { db, prefix } = harness;
const dir = mkdtempSync(join(tmpdir(), "evo-trainer-env-"));
const python = join(dir, "python");
writeFileSync(python, "#!/bin/sh\nenv > seen-env.txt\n", { mode: 0o755 });

describe("trainer.env reaches the job's process", () => {
  afterAll(async () => {
    await harness.close();
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
    const deps = harness.depsWith(executors, { log: (line) => logged.push(line), monitorEveryMs: 60_000 });
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
