import { TRPCError, type TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import type { RunControl } from "@evotrainer/core";
import { applyRunControl, requestJobCancel } from "@evotrainer/db";
import { QueueName } from "@evotrainer/queue";
import { requireRunRole, userProcedure, type Context } from "../trpc.ts";

const runId = z.object({ runId: z.string().min(1) });

/**
 * Applies one control as the caller (approver or admin of the run's organization). A refusal is a
 * 412 naming why; asking for the state the run is already in answers `already` and changes nothing.
 * After commit the worker is told; if Redis is away the reconciler finds the new status in Postgres.
 */
async function control(ctx: Parameters<typeof requireRunRole>[0] & Pick<Context, "producer"> & { userId: string }, input: { runId: string }, control: RunControl) {
  await requireRunRole(ctx, input.runId, "approver");
  const outcome = await applyRunControl(ctx.db, { runId: input.runId, control, userId: ctx.userId });
  if (outcome.outcome === "refused") throw new TRPCError({ code: "PRECONDITION_FAILED", message: outcome.message });
  if (outcome.outcome === "already") return { status: outcome.status, changed: false, message: outcome.message };
  const next = control.kind === "stop" ? ctx.producer().enqueue(QueueName.Control, { runId: input.runId }) : control.kind === "resume" ? ctx.producer().enqueue(QueueName.Reconcile, {}) : Promise.resolve();
  await next.catch(() => undefined);
  return { status: outcome.to, changed: true, message: null };
}

/** Pause, resume, stop and budget extension of a whole run: the dashboard's run controls, the API and the CLI. */
export const runControlRouter = {
  pause: userProcedure.input(runId).mutation(({ ctx, input }) => control(ctx, input, { kind: "pause" })),
  resume: userProcedure.input(runId).mutation(({ ctx, input }) => control(ctx, input, { kind: "resume" })),
  stop: userProcedure.input(runId.extend({ sealed: z.boolean().default(true) })).mutation(({ ctx, input }) => control(ctx, input, { kind: "stop", sealed: input.sealed })),
  extendBudget: userProcedure
    .input(runId.extend({ gpuSeconds: z.number().positive().max(1e9) }))
    .mutation(({ ctx, input }) => control(ctx, input, { kind: "extend_budget", gpuSeconds: input.gpuSeconds })),
  /** One training job, ended through its executor by the worker; its branch is cancelled and the round goes on. */
  cancelJob: userProcedure.input(z.object({ jobId: z.string().min(1) })).mutation(async ({ ctx, input }) => {
    const job = await ctx.db.job.findUnique({ where: { id: input.jobId }, select: { branch: { select: { runId: true } } } });
    if (!job) throw new TRPCError({ code: "NOT_FOUND", message: "job not found" });
    await requireRunRole(ctx, job.branch.runId, "approver", "job");
    const outcome = await requestJobCancel(ctx.db, { jobId: input.jobId, userId: ctx.userId });
    if (outcome.outcome === "refused") throw new TRPCError({ code: "PRECONDITION_FAILED", message: outcome.message });
    if (outcome.outcome === "already") return { changed: false, message: outcome.message };
    await ctx.producer().enqueue(QueueName.Control, { runId: outcome.runId, jobId: input.jobId }).catch(() => undefined);
    return { changed: true, message: null };
  }),
} satisfies TRPCRouterRecord;
