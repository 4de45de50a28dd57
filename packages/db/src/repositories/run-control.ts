import { cancelJobRule, controlRun, type JobCancelOutcome, type JobState, type RunControl, type RunControlOutcome, type RunStatus } from "@evotrainer/core";
import type { Prisma } from "../generated/prisma/client.ts";
import type { Database } from "../client.ts";
import { recordEvent, type EventType } from "./events.ts";

const EVENT: Record<RunControl["kind"], EventType> = {
  pause: "run_paused",
  resume: "run_resumed",
  stop: "run_stop_requested",
  extend_budget: "budget_extended",
};

/**
 * The one writer of a person's run control: the run row is locked, core's rules decide, and the
 * new status (or budget) commits with its audited event. A repeat answers `already` and writes nothing.
 */
export async function applyRunControl(db: Database, input: { runId: string; control: RunControl; userId: string }): Promise<RunControlOutcome> {
  return db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT 1 FROM "Run" WHERE "id" = ${input.runId} FOR UPDATE`;
    const run = await tx.run.findUniqueOrThrow({ where: { id: input.runId }, select: { status: true, settings: true, budget: true, gpuSecondsUsed: true } });
    const settings = run.settings as { budget: { gpuSeconds: number } } & Record<string, unknown>;
    const decided = controlRun(run.status as RunStatus, input.control, settings.budget.gpuSeconds);
    if (decided.outcome !== "applied") return decided;
    const { control } = input;
    if (control.kind === "extend_budget") {
      await tx.run.update({
        where: { id: input.runId },
        data: {
          settings: { ...settings, budget: { ...settings.budget, gpuSeconds: control.gpuSeconds } } as Prisma.InputJsonValue,
          budget: { ...(run.budget as Record<string, unknown>), gpuSeconds: control.gpuSeconds } as Prisma.InputJsonValue,
        },
      });
    } else {
      await tx.run.update({ where: { id: input.runId }, data: { status: decided.to } });
    }
    await recordEvent(tx, {
      runId: input.runId,
      type: EVENT[control.kind],
      actor: `user:${input.userId}`,
      payload: { from: run.status, to: decided.to, ...control, gpuSecondsUsed: run.gpuSecondsUsed, ...(control.kind === "extend_budget" ? { previous: settings.budget.gpuSeconds } : {}) },
    });
    return decided;
  });
}

/** How the last stop asked to end: with the sealed evaluation or without. */
export async function requestedStop(db: Database, runId: string): Promise<{ sealed: boolean; actor: string } | null> {
  const event = await db.event.findFirst({ where: { runId, type: "run_stop_requested" }, orderBy: { id: "desc" }, select: { payload: true, actor: true } });
  if (!event) return null;
  return { sealed: (event.payload as { sealed?: boolean }).sealed !== false, actor: event.actor };
}

/**
 * Who cancelled a job, and why, for its job_cancelled event: the person who asked to cancel that
 * job, else the one who stopped its run, else the system (its process was ended outside the control plane).
 */
export async function cancellationOf(db: Database, job: { id: string; runId: string; cancelRequested: boolean; runStopping: boolean }): Promise<{ actor: string; reason: string }> {
  if (job.cancelRequested) {
    const asked = await db.event.findFirst({ where: { runId: job.runId, type: "job_cancel_requested", payload: { path: ["jobId"], equals: job.id } }, orderBy: { id: "desc" }, select: { actor: true } });
    return { actor: asked?.actor ?? "system", reason: "a person cancelled it" };
  }
  if (job.runStopping) return { actor: (await requestedStop(db, job.runId))?.actor ?? "system", reason: "the run was stopped" };
  return { actor: "system", reason: "its process was ended outside the control plane" };
}

/** Records a person's request to cancel one job, with its event; the worker's control step carries it out. */
export async function requestJobCancel(db: Database, input: { jobId: string; userId: string }): Promise<JobCancelOutcome & { runId: string }> {
  return db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT 1 FROM "Job" WHERE "id" = ${input.jobId} FOR UPDATE`;
    const job = await tx.job.findUniqueOrThrow({ where: { id: input.jobId }, select: { state: true, kind: true, cancelRequestedAt: true, branchId: true, branch: { select: { runId: true } } } });
    const decided = cancelJobRule({ state: job.state as JobState, kind: job.kind, cancelRequested: job.cancelRequestedAt !== null });
    if (decided.outcome === "applied") {
      await tx.job.update({ where: { id: input.jobId }, data: { cancelRequestedAt: new Date() } });
      await recordEvent(tx, { runId: job.branch.runId, branchId: job.branchId, type: "job_cancel_requested", actor: `user:${input.userId}`, payload: { jobId: input.jobId, state: job.state } });
    }
    return { ...decided, runId: job.branch.runId };
  });
}
