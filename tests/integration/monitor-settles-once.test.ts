import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { trlAdapter, verlAdapter, type TrainerAdapter } from "@evotrainer/adapters";
import { runConfigSchema } from "@evotrainer/core";
import { createRun } from "@evotrainer/db";
import { ExecutorPool } from "../../apps/worker/src/executors/executor-pool.ts";
import { dispatch } from "../../apps/worker/src/loop/dispatch.ts";
import { monitor } from "../../apps/worker/src/loop/monitor.ts";
import { loopHarness } from "../support/loop-harness.ts";
import { until } from "../support/until.ts";

// Two monitor passes over one ended job, as after Redis comes back empty: the reconcile sweep
// queues the job's monitor step again while the pass Redis forgot is still running. Both passes see
// the job running and then ended (a failpoint holds each until the other has seen it too); only one
// may settle it. Real trainer processes under the local executor; only the trainers are this test's.
const TRAINERS = {
  succeeds: `import { readFileSync, writeFileSync } from "node:fs";
const job = JSON.parse(readFileSync(process.argv[2], "utf8"));
writeFileSync(job.outputDir + "/status.json", JSON.stringify({ state: "succeeded", exitCode: 0, lastStep: 0 }));`,
  crashes: `process.exit(1);`,
};

const harness = await loopHarness(inject("databaseUrl"), inject("redisUrl"));
const { db, prefix } = harness;
const dir = mkdtempSync(join(tmpdir(), "evo-settles-once-"));
const base = runConfigSchema.parse({ ...(parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, unknown>), name: "settles once" });

/** A failpoint that holds each pass at `monitor:ended` until both passes are there. */
function bothEnded() {
  let arrived = 0;
  let release = () => {};
  const together = new Promise<void>((resolve) => (release = resolve));
  return async (name: string) => {
    if (name !== "monitor:ended") return;
    arrived += 1;
    if (arrived === 2) release();
    await together;
  };
}

async function twoPassesOverEndedJob(trainer: keyof typeof TRAINERS) {
  const file = join(dir, `${trainer}.mjs`);
  writeFileSync(file, TRAINERS[trainer]);
  const adapter: TrainerAdapter = {
    name: "gym",
    render: (job) => ({ command: [process.execPath, file, "job.json"], env: {}, files: { "job.json": JSON.stringify(job) } }),
  };
  const org = await db.organization.create({ data: { name: `${prefix}-${trainer}`, slug: `${prefix}-${trainer}` } });
  const { runId, baseBranchId } = await createRun(db, base, { organizationId: org.id });
  const executors = new ExecutorPool(db, join(dir, "jobs"), process.env, () => {});
  const adapters = { gym: adapter, verl: verlAdapter(), trl: trlAdapter() };
  const step = { runId, branchId: baseBranchId };
  expect(await dispatch(harness.depsWith(executors, { adapters }), step)).toBe("launched");
  const job = await db.job.findFirstOrThrow({ where: { branchId: baseBranchId } });
  const { executor } = await executors.open(job);
  const handle = { executor: job.executor, externalId: job.externalId!, workDir: job.outputUri! };
  await until(`the ${trainer} trainer to end`, async () => (await executor.observe(handle)).state !== "running");

  const deps = harness.depsWith(executors, { adapters, failpoint: bothEnded() });
  const said = await Promise.all([monitor(deps, { ...step, jobId: job.id }), monitor(deps, { ...step, jobId: job.id })]);
  const events = await db.event.groupBy({ by: ["type"], where: { runId, type: { in: ["training_finished", "job_retry", "failure"] } }, _count: true });
  return {
    said: said.sort(),
    events: Object.fromEntries(events.map((e) => [e.type, e._count])),
    job: await db.job.findUniqueOrThrow({ where: { id: job.id }, select: { state: true, attempts: true } }),
  };
}

describe("two monitor passes over one ended job settle it once", () => {
  afterAll(async () => {
    await harness.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a job that succeeded: one pass trains it, the other says it was settled; one training_finished event", async () => {
    const { said, events, job } = await twoPassesOverEndedJob("succeeds");
    expect(said).toEqual(["settled by another pass", "trained"]);
    expect(events).toEqual({ training_finished: 1 });
    expect(job.state).toBe("succeeded");
  });

  it("a job that crashed: one pass queues its retry, the other says it was settled; one job_retry event, one attempt", async () => {
    const { said, events, job } = await twoPassesOverEndedJob("crashes");
    expect(said[0]).toMatch(/^retrying in \d+ ms$/);
    expect(said[1]).toBe("settled by another pass");
    expect(events).toEqual({ job_retry: 1 });
    expect(job).toEqual({ state: "pending", attempts: 1 });
  });
});
