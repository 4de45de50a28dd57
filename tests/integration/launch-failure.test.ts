import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { runConfigSchema } from "@evotrainer/core";
import { createRun } from "@evotrainer/db";
import { QueueName } from "@evotrainer/queue";
import { ExecutorPool } from "../../apps/worker/src/executors/executor-pool.ts";
import { dispatch } from "../../apps/worker/src/loop/dispatch.ts";
import { loopHarness } from "../support/loop-harness.ts";

// A job whose launch always throws: the local executor's jobs folder is a file, so creating the job's
// directory fails (the issue met it as a job directory made unwritable mid-run). Each dispatch is the
// real step, called as the queue calls it; nothing is mocked.
const redisUrl = inject("redisUrl");
const harness = await loopHarness(inject("databaseUrl"), redisUrl);
const { db, prefix } = harness;
const dir = mkdtempSync(join(tmpdir(), "evo-launch-failure-"));
const notADirectory = join(dir, "jobs");
writeFileSync(notADirectory, "a file where the jobs folder should be\n");

describe("a job that cannot launch does not loop", () => {
  afterAll(async () => {
    await harness.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("counts each throwing launch as an attempt, then fails the branch with a failure event and a notification; the run goes on", async () => {
    const org = await db.organization.create({ data: { name: prefix, slug: prefix } });
    const config = runConfigSchema.parse({ ...(parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, unknown>), name: "cannot launch" });
    const { runId, baseBranchId } = await createRun(db, config, { organizationId: org.id });
    const executors = new ExecutorPool(db, notADirectory, process.env, () => {});
    const deps = harness.depsWith(executors);
    try {
      const answers: string[] = [];
      // The queue and the reconciler would call dispatch again and again; it must stop answering "retry".
      for (let call = 0; call < 6; call++) answers.push(await dispatch(deps, { runId, branchId: baseBranchId }));
      const job = await db.job.findFirstOrThrow({ where: { branchId: baseBranchId } });
      expect(answers.slice(0, job.maxAttempts - 1).every((a) => a.startsWith("retrying in"))).toBe(true);
      expect(answers[job.maxAttempts - 1]).toBe("failed: crash");
      expect(answers.slice(job.maxAttempts)).toEqual(Array(answers.length - job.maxAttempts).fill("branch is failed"));
      expect(job).toMatchObject({ state: "failed", attempts: job.maxAttempts, failureClass: "crash" });
      expect(job.message).toMatch(/^the job could not be launched: .*jobs.*\(gave up after 3 attempts\)$/);
      expect(await db.branch.findUniqueOrThrow({ where: { id: baseBranchId } })).toMatchObject({ status: "failed" });

      const events = await db.event.findMany({ where: { runId, type: { in: ["job_retry", "failure"] } }, orderBy: { id: "asc" } });
      expect(events.map((e) => e.type)).toEqual([...Array(job.maxAttempts - 1).fill("job_retry"), "failure"]);
      const outbox = await db.notificationOutbox.findMany({ where: { runId } });
      expect(outbox.map((n) => n.kind)).toEqual(["job_failed"]);

      // The run goes on without the branch: its next round is proposed.
      const propose = new Queue(QueueName.Propose, { connection: { url: redisUrl }, prefix });
      try {
        expect((await propose.getJobs()).map((j) => j.data)).toEqual([{ runId, round: 1 }]);
      } finally {
        await propose.close();
      }
      expect(await db.run.findUniqueOrThrow({ where: { id: runId } })).toMatchObject({ status: "running" });
    } finally {
      await executors.close();
    }
  }, 60_000);
});
