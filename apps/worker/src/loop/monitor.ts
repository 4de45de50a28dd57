import { readdir } from "node:fs/promises";
import { join, posix, resolve } from "node:path";
import { paths, readCheckpoint, readEval, readHeartbeat, parseContractPath, type EvalResult } from "@evotrainer/contract";
import { cancellationOf, json, recordEvent } from "@evotrainer/db";
import { QueueName } from "@evotrainer/queue";
import type { JobHandle } from "@evotrainer/executors";
import { advanceRun } from "./advance-run.ts";
import { crossedBudgetShare } from "./budget.ts";
import type { LoopDeps } from "./deps.ts";
import { ingestJobOutputs } from "./ingest-outputs.ts";
import { mirrorOutputs } from "./mirror-outputs.ts";
import { SETTLED_ELSEWHERE, settleFailedAttempt } from "./failed-attempt.ts";
import { staleHeartbeat } from "./stale-heartbeat.ts";
import { gpuCharge, jobClock, runConfigOf, type JobClock } from "@evotrainer/core";

const LOG_TAIL_BYTES = 8_000;

/** The newest eval/step_N.json of a job, if it wrote any. */
export async function latestEval(outputDir: string): Promise<EvalResult | null> {
  const names = await readdir(paths(outputDir).evalDir).catch(() => [] as string[]);
  const steps = names
    .map((name) => parseContractPath(`eval/${name}`))
    .flatMap((parsed) => (parsed?.kind === "eval" ? [parsed.step] : []))
    .sort((a, b) => b - a);
  return steps.length > 0 ? readEval(outputDir, steps[0]!) : null;
}

/**
 * One look at a running job: ingest what it wrote, account its seconds, and act on how it ended.
 * Returns "running" while the job runs; the caller re-schedules this step instead of holding a worker.
 */
export async function monitor(deps: LoopDeps, payload: { runId: string; branchId: string; jobId: string }): Promise<string> {
  const { db } = deps;
  const job = await db.job.findUniqueOrThrow({ where: { id: payload.jobId }, include: { branch: { include: { run: true, recipe: true } } } });
  if (job.state !== "running" || !job.externalId || !job.outputUri) return `job is ${job.state}`;
  // A person asked to cancel it: the control step ends it, and nothing this pass saw may settle it first.
  if (job.cancelRequestedAt) return "cancel requested";
  const { branch } = job;
  const config = runConfigOf(branch.run);
  const { executor, localDir, mirrored } = await deps.executors.open(job);
  const handle: JobHandle = { executor: job.executor, externalId: job.externalId, workDir: job.outputUri };
  const outputDir = join(localDir, "output");

  // Observe first: once a job has ended its files are complete, so this pass ingests all of them.
  let observation = await executor.observe(handle);
  if (mirrored) {
    try {
      await mirrorOutputs(executor, handle, localDir);
    } catch (error) {
      // While the job runs a failed pull costs nothing: the next pass resumes where the mirror ends.
      if (observation.state !== "running") throw error;
      deps.log(`monitor: job ${job.id}: could not pull its outputs yet (${(error as Error).message})`);
    }
  }
  const recipe = JSON.parse(branch.recipe.canonical) as { algo: { maxResponseTokens: number } };
  const ingested = await ingestJobOutputs(deps, {
    runId: branch.runId,
    branchId: branch.id,
    jobId: job.id,
    outputDir,
    domain: config.domain,
    harnessVersionId: branch.run.harnessVersionId!,
    maxResponseTokens: recipe.algo.maxResponseTokens,
    textSampleRate: 0.05,
  });

  const now = new Date();
  // Read after the observation: a job that has ended wrote its last beat before its exit code.
  const heartbeat = await readHeartbeat(outputDir).catch(() => null);
  // A trainer whose beats do not say when it started is charged its process's own times instead.
  // While the job runs a failed look costs nothing: the next one charges the attempt's whole time so far.
  const processTimes = heartbeat?.startedAt
    ? null
    : await executor.times(handle).catch((error: unknown) => {
        if (observation.state !== "running") throw error;
        return null;
      });
  const clock = jobClock(heartbeat, processTimes, observation.state === "running");
  await chargeJobClock(deps, { jobId: job.id, branchId: branch.id, runId: branch.runId, budgetGpuSeconds: config.budget.gpuSeconds }, clock, now);
  if (ingested.quarantined > 0) deps.log(`monitor: job ${job.id} quarantined ${ingested.quarantined} line(s)`);

  const hung = observation.state === "running" ? staleHeartbeat(heartbeat, now, deps.heartbeatStaleMs) : null;
  if (hung) {
    await executor.cancel(handle);
    observation = { state: "failed", exitCode: null, failureClass: "crash", retriable: true, message: hung };
  }

  switch (observation.state) {
    case "running":
      await deps.failpoint(job.kind === "train" ? "monitor:training" : "monitor:sealed-evaluation");
      return "running";
    case "succeeded":
      // Two passes may have seen the job end (a monitor step re-queued after Redis lost it): whichever settles the row first acts.
      await deps.failpoint("monitor:ended");
      return job.kind === "train" ? trainingSucceeded(deps, job, outputDir) : sealedEvaluationSucceeded(deps, job.id, outputDir);
    case "cancelled": {
      // The stop's own step may be ending this job too: whichever settles the row writes the event, with who cancelled it.
      const { actor, reason } = await cancellationOf(db, { id: job.id, runId: branch.runId, cancelRequested: false, runStopping: branch.run.status === "stopping" });
      await db.$transaction(async (tx) => {
        const moved = await tx.job.updateMany({ where: { id: job.id, state: "running" }, data: { state: "cancelled", finishedAt: now } });
        if (moved.count === 0) return;
        await tx.branch.update({ where: { id: branch.id }, data: { status: "cancelled" } });
        await recordEvent(tx, { runId: branch.runId, branchId: branch.id, type: "job_cancelled", actor, payload: { jobId: job.id, kind: job.kind, reason } });
      });
      await advanceRun(deps, branch.runId);
      return "cancelled";
    }
    case "failed": {
      await deps.failpoint("monitor:ended");
      const logTail = await executor.logTail(handle, LOG_TAIL_BYTES);
      const { state: _failed, ...failure } = observation;
      return settleFailedAttempt(deps, { ...job, branch }, { ...failure, logTail }, localDir);
    }
  }
}

/**
 * Charges the job, its branch and its run what the job's own clock (its heartbeat's, or its process's
 * times: core's jobClock) moved since the last charge (core's gpuCharge), never the control plane's
 * time between two passes: a worker that was down
 * while the job ran charges, when it is back, what the job ran, not how long it was away. The job
 * row is locked, so two passes at once charge a beat once.
 */
async function chargeJobClock(
  deps: LoopDeps,
  ids: { jobId: string; branchId: string; runId: string; budgetGpuSeconds: number },
  clock: JobClock | null,
  now: Date,
): Promise<void> {
  await deps.db.$transaction(async (tx) => {
    const [job] = await tx.$queryRaw<{ attemptStartedAt: Date | null; attemptGpuSeconds: number }[]>`
      SELECT "attemptStartedAt", "attemptGpuSeconds" FROM "Job" WHERE id = ${ids.jobId} FOR UPDATE`;
    const charge = gpuCharge({ startedAt: job?.attemptStartedAt?.toISOString() ?? null, seconds: job?.attemptGpuSeconds ?? 0 }, clock);
    if (charge.outcome === "nothing") {
      await tx.job.update({ where: { id: ids.jobId }, data: { heartbeatAt: now } });
      return;
    }
    const { seconds, attempt } = charge;
    await tx.job.update({
      where: { id: ids.jobId },
      data: { heartbeatAt: now, gpuSeconds: { increment: seconds }, attemptStartedAt: new Date(attempt.startedAt!), attemptGpuSeconds: attempt.seconds },
    });
    await tx.branch.update({ where: { id: ids.branchId }, data: { gpuSecondsUsed: { increment: seconds } } });
    const run = await tx.run.update({ where: { id: ids.runId }, data: { gpuSecondsUsed: { increment: seconds } }, select: { gpuSecondsUsed: true } });
    // The run row's lock orders concurrent increments, so exactly one of them crosses the line.
    if (crossedBudgetShare(ids.budgetGpuSeconds, run.gpuSecondsUsed - seconds, run.gpuSecondsUsed, 0.8)) {
      await recordEvent(tx, { runId: ids.runId, type: "budget_80", actor: "system", payload: { gpuSecondsUsed: run.gpuSecondsUsed, gpuSecondsBudget: ids.budgetGpuSeconds } });
    }
  });
}

/** Where a checkpoint is for the job that resumes from it: on this machine, or on the node that wrote it. */
function checkpointLocation(job: { executor: string; nodeId: string | null; outputUri: string | null }, outputDir: string, relative: string) {
  if (job.executor === "local") return { path: resolve(outputDir, relative) };
  return { path: posix.resolve(job.outputUri!, "output", relative), ...(job.nodeId ? { nodeId: job.nodeId } : {}) };
}

async function trainingSucceeded(deps: LoopDeps, ended: { id: string; executor: string; nodeId: string | null; outputUri: string | null }, outputDir: string): Promise<string> {
  const { db } = deps;
  const checkpoint = await readCheckpoint(outputDir);
  const jobId = ended.id;
  const job = await db.$transaction(async (tx) => {
    const moved = await tx.job.updateMany({ where: { id: jobId, state: "running" }, data: { state: "succeeded", finishedAt: new Date(), exitCode: 0 } });
    if (moved.count === 0) return null;
    const job = await tx.job.findUniqueOrThrow({ where: { id: jobId }, include: { branch: true } });
    await tx.branch.update({
      where: { id: job.branchId },
      data: { status: "evaluating", checkpoint: checkpoint ? json({ ...checkpoint, ...checkpointLocation(ended, outputDir, checkpoint.path) }) : undefined },
    });
    const rollouts = await tx.rollout.count({ where: { branchId: job.branchId } });
    await recordEvent(tx, { runId: job.branch.runId, branchId: job.branchId, type: "training_finished", actor: "system", payload: { jobId, rollouts, gpuSeconds: job.gpuSeconds } });
    return job;
  });
  if (!job) return SETTLED_ELSEWHERE;
  await deps.producer.enqueue(QueueName.Verdict, { runId: job.branch.runId, branchId: job.branchId });
  return "trained";
}

async function sealedEvaluationSucceeded(deps: LoopDeps, jobId: string, outputDir: string): Promise<string> {
  const { db } = deps;
  const result = await latestEval(outputDir);
  const sealed = result?.splits.sealed;
  const settled = await db.$transaction(async (tx) => {
    const moved = await tx.job.updateMany({ where: { id: jobId, state: "running" }, data: { state: "succeeded", finishedAt: new Date(), exitCode: 0 } });
    if (moved.count === 0) return false;
    const job = await tx.job.findUniqueOrThrow({ where: { id: jobId }, include: { branch: true } });
    const report = { sealed: sealed ? { branchId: job.branchId, score: sealed.score, tasks: sealed.tasks.length } : null };
    await tx.run.update({ where: { id: job.branch.runId }, data: { status: "completed", finishedAt: new Date(), finalReport: json(report) } });
    await recordEvent(tx, { runId: job.branch.runId, branchId: job.branchId, type: "run_finished", actor: "system", payload: json(report) });
    return true;
  });
  return settled ? "sealed evaluated" : SETTLED_ELSEWHERE;
}
