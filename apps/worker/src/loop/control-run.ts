import { ACTIVE_JOB_STATES, isActiveJob, OPEN_BRANCH_STATUSES } from "@evotrainer/core";
import { cancellationOf, recordEvent, requestedStop } from "@evotrainer/db";
import { advanceRun } from "./advance-run.ts";
import { cancelActiveJob } from "./cancel-active-job.ts";
import type { LoopDeps } from "./deps.ts";
import { finishRun } from "./finish-run.ts";

/** The control queue's step: one job's cancellation when it names a job, else the run's stop. */
export function controlStep(deps: LoopDeps, payload: { runId: string; jobId?: string | undefined }): Promise<string> {
  return payload.jobId ? cancelJob(deps, { runId: payload.runId, jobId: payload.jobId }) : stopRun(deps, payload);
}

/**
 * Ends one training job a person asked to cancel: through its executor, then the job and its
 * branch are cancelled and the round goes on without it. Safe to repeat (the reconciler re-enqueues it).
 */
export async function cancelJob(deps: LoopDeps, payload: { runId: string; jobId: string }): Promise<string> {
  const { db } = deps;
  const job = await db.job.findUniqueOrThrow({ where: { id: payload.jobId } });
  if (!job.cancelRequestedAt || !isActiveJob(job.state)) return `job is ${job.state}`;
  const { actor, reason } = await cancellationOf(db, { id: job.id, runId: payload.runId, cancelRequested: true, runStopping: false });
  await cancelActiveJob(deps, job.id, async (tx) => {
    await tx.branch.updateMany({ where: { id: job.branchId, status: { in: ["queued", "training"] } }, data: { status: "cancelled" } });
    await recordEvent(tx, { runId: payload.runId, branchId: job.branchId, type: "job_cancelled", actor, payload: { jobId: job.id, kind: job.kind, reason } });
  });
  return `cancelled; ${await advanceRun(deps, payload.runId)}`;
}

/**
 * Carries out a person's stop: every job of the run still pending or running is cancelled through
 * its executor (the process, the SSH job or the Kubernetes Job ends), its open branches are
 * cancelled, and the run finishes with the sealed evaluation of its best branch or, when the stop
 * skipped it, ends cancelled. Safe to repeat: the reconciler re-enqueues it while the run is stopping.
 */
export async function stopRun(deps: LoopDeps, payload: { runId: string }): Promise<string> {
  const { db } = deps;
  const run = await db.run.findUniqueOrThrow({ where: { id: payload.runId }, select: { id: true, status: true } });
  if (run.status !== "stopping") return `run is ${run.status}`;
  const stop = (await requestedStop(db, run.id)) ?? { sealed: true, actor: "system" };
  const active = await db.job.findMany({ where: { branch: { runId: run.id }, state: { in: [...ACTIVE_JOB_STATES] } } });
  for (const job of active) {
    await cancelActiveJob(deps, job.id, async (tx) => {
      await recordEvent(tx, { runId: run.id, branchId: job.branchId, type: "job_cancelled", actor: stop.actor, payload: { jobId: job.id, kind: job.kind, reason: "the run was stopped" } });
    });
  }
  await db.branch.updateMany({ where: { runId: run.id, status: { in: [...OPEN_BRANCH_STATUSES] } }, data: { status: "cancelled" } });
  await deps.failpoint("control:jobs-cancelled");
  await db.$transaction(async (tx) => {
    await recordEvent(tx, { runId: run.id, type: "run_stopped", actor: stop.actor, payload: { sealed: stop.sealed, cancelledJobs: active.length } });
    if (!stop.sealed) await tx.run.updateMany({ where: { id: run.id, status: "stopping" }, data: { status: "cancelled", finishedAt: new Date() } });
  });
  if (!stop.sealed) return `stopped: ${active.length} job(s) cancelled, the sealed evaluation skipped`;
  return finishRun(deps, run.id, `stopped by ${stop.actor}`, "stopping");
}
