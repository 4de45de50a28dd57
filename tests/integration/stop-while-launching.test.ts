import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parse } from "yaml";
import { createLocalUser } from "@evotrainer/api";
import { runConfigSchema } from "@evotrainer/core";
import { createRun } from "@evotrainer/db";
import type { Executor, JobHandle } from "@evotrainer/executors";
import { ExecutorPool } from "../../apps/worker/src/executors/executor-pool.ts";
import { stopRun } from "../../apps/worker/src/loop/control-run.ts";
import { dispatch } from "../../apps/worker/src/loop/dispatch.ts";
import { loopHarness } from "../support/loop-harness.ts";

// A stop that lands while a branch's trainer is being launched: the process is started, but its job
// row does not name it yet. The real dispatch and stop steps run here on a real local executor, and
// the launch is held between the two moments by a gate (no sleep), so the race is hit every time.
// CI met it as a trainer that outlived its stopped run and wrote into a removed directory.
const redisUrl = inject("redisUrl");
const harness = await loopHarness(inject("databaseUrl"), redisUrl);
const { db, prefix } = harness;
const jobsDir = mkdtempSync(join(tmpdir(), "evo-stop-launch-"));

/** Whether any process of the group lives (a zombie, exited but not yet reaped, does not): read here from /proc, not by the executor's own check. */
function processGroupAlive(pgid: number): boolean {
  return readdirSync("/proc").some((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return Number(pgrp) === pgid && state !== "Z";
    } catch {
      return false;
    }
  });
}

/** The worker's executors, but each launch holds its handle until `release` is called. */
function gatedExecutors(real: ExecutorPool) {
  let started!: (handle: JobHandle) => void;
  let release!: () => void;
  const launched = new Promise<JobHandle>((resolve) => (started = resolve));
  const gate = new Promise<void>((resolve) => (release = resolve));
  const open: ExecutorPool["open"] = async (row) => {
    const opened = await real.open(row);
    const executor: Executor = Object.create(opened.executor, {
      launch: {
        value: async (spec: Parameters<Executor["launch"]>[0]) => {
          const handle = await opened.executor.launch(spec);
          started(handle);
          await gate;
          return handle;
        },
      },
    });
    return { ...opened, executor };
  };
  return { executors: Object.assign(Object.create(real) as ExecutorPool, { open }), launched, release };
}

describe("a run stopped while its trainer launches leaves no trainer running", () => {
  afterAll(async () => {
    await harness.close();
    rmSync(jobsDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  // With the sealed evaluation asked for, the stop finds no trained branch to evaluate: the run was
  // stopped, so it ends cancelled (it used to end "failed: no branch was ever promoted").
  it.each([
    { sealed: false, outcome: /^stopped: 1 job\(s\) cancelled/ },
    { sealed: true, outcome: /^cancelled: stopped before any branch finished training/ },
  ])("the launch finds its job cancelled and ends the process it started; the job stays cancelled, the run ends cancelled (sealed evaluation asked: $sealed)", async ({ sealed, outcome }) => {
    const org = await db.organization.create({ data: { name: `${prefix}-${sealed}`, slug: `${prefix}-${sealed}` } });
    const config = runConfigSchema.parse({
      ...(parse(readFileSync("examples/gym-math.yaml", "utf8")) as Record<string, unknown>),
      name: "stopped while launching",
      // Long enough that the trainer is still running when the stop lands, however fast the machine.
      search: { proposals: 2, keep: 1, stepsPerBranch: 400, proposer: "rule", control: "none", acceptUnboundedFalsePromotions: true },
    });
    const { runId, baseBranchId } = await createRun(db, config, { organizationId: org.id });
    const approver = await createLocalUser(db, { email: `${prefix}-${sealed}@example.test`, name: "Approver", password: "correct horse battery staple", organizationId: org.id, role: "approver" });
    const api = harness.callerAs({ userId: approver.id });

    const real = new ExecutorPool(db, jobsDir, process.env, () => {});
    const { executors, launched, release } = gatedExecutors(real);
    const deps = harness.depsWith(executors);

    const dispatched = dispatch(deps, { runId, branchId: baseBranchId });
    const handle = await launched;
    const pgid = Number(handle.externalId);
    try {
      expect(processGroupAlive(pgid)).toBe(true);
      const job = await db.job.findFirstOrThrow({ where: { branchId: baseBranchId } });
      expect(job).toMatchObject({ state: "pending", externalId: null });

      // The person's stop, and the control step carrying it out, while the launch is held.
      await api.runControl.stop({ runId, sealed });
      expect(await stopRun(deps, { runId })).toMatch(outcome);
      expect(await db.job.findUniqueOrThrow({ where: { id: job.id } })).toMatchObject({ state: "cancelled" });

      release();
      expect(await dispatched).toBe("cancelled while it launched");
      expect(processGroupAlive(pgid)).toBe(false);
      expect(await db.job.findUniqueOrThrow({ where: { id: job.id } })).toMatchObject({ state: "cancelled", externalId: null });
      expect(await db.run.findUniqueOrThrow({ where: { id: runId } })).toMatchObject({ status: "cancelled" });
      const finished = await db.event.findFirst({ where: { runId, type: "run_finished" } });
      expect(finished?.payload ?? null).toEqual(sealed ? expect.objectContaining({ stopped: true, error: null }) : null);
    } finally {
      release();
      await dispatched.catch(() => undefined);
      if (processGroupAlive(pgid)) process.kill(-pgid, "SIGKILL");
      await real.close();
    }
  }, 60_000);
});
