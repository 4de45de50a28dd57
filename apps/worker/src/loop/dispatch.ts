import { QueueName } from "@evotrainer/queue";
import { recordEvent } from "@evotrainer/db";
import { buildJob } from "./build-job.ts";
import type { LoopDeps } from "./deps.ts";
import { runConfigOf } from "@evotrainer/core";
import { advanceRun } from "./advance-run.ts";
import { finishRunIfBudgetSpent } from "./finish-run.ts";

const activeJobStates = ["pending", "submitted", "running"] as const;

/**
 * Starts training a queued branch: one train job row (created once, however often this step
 * runs), rendered by the adapter, launched by the executor, then watched by the monitor step.
 */
export async function dispatch(deps: LoopDeps, payload: { runId: string; branchId: string }): Promise<string> {
  const { db } = deps;
  const branch = await db.branch.findUniqueOrThrow({ where: { id: payload.branchId }, include: { run: true, recipe: true, parent: true } });
  if (branch.run.status !== "running") return `run is ${branch.run.status}`;
  if (branch.status !== "queued" && branch.status !== "training") return `branch is ${branch.status}`;
  if (await finishRunIfBudgetSpent(deps, branch.runId)) {
    if (branch.status === "queued") {
      await db.$transaction(async (tx) => {
        await tx.branch.update({ where: { id: branch.id }, data: { status: "cancelled" } });
        await recordEvent(tx, { runId: branch.runId, branchId: branch.id, type: "failure", actor: "system", payload: { reason: "GPU budget spent before this branch could train" } });
      });
      await advanceRun(deps, branch.runId);
    }
    return "budget spent";
  }

  const job = await db.$transaction(async (tx) => {
    const existing = await tx.job.findFirst({ where: { branchId: branch.id, kind: "train", state: { in: [...activeJobStates] } } });
    if (existing) return existing;
    await tx.branch.update({ where: { id: branch.id }, data: { status: "training" } });
    return tx.job.create({ data: { branchId: branch.id, kind: "train", executor: "local", adapter: "gym", state: "pending" } });
  });
  if (job.state === "running" && job.externalId) {
    await deps.producer.enqueue(QueueName.Monitor, { runId: branch.runId, branchId: branch.id, jobId: job.id });
    return "already running";
  }
  return launchJob(deps, { jobId: job.id, kind: "train", branchId: branch.id, checkpoint: (branch.parent?.checkpoint as { path?: string } | null)?.path });
}

/** Renders and launches one job row, then hands it to the monitor. Shared by training and the sealed evaluation. */
export async function launchJob(
  deps: LoopDeps,
  input: { jobId: string; kind: "train" | "eval"; branchId: string; checkpoint: string | undefined },
): Promise<string> {
  const { db, executor } = deps;
  const branch = await db.branch.findUniqueOrThrow({ where: { id: input.branchId }, include: { run: true, recipe: true } });
  const config = runConfigOf(branch.run);
  const workDir = executor.workDirFor(input.jobId);
  const remaining = Math.max(1, config.budget.gpuSeconds - branch.run.gpuSecondsUsed);
  const job = buildJob(config, {
    jobId: input.jobId,
    kind: input.kind,
    runId: branch.runId,
    branchId: branch.id,
    branchVersion: branch.version,
    recipe: JSON.parse(branch.recipe.canonical) as Record<string, unknown>,
    checkpoint: input.checkpoint,
    workDir,
    maxSeconds: remaining,
  });
  const rendered = deps.adapters[config.adapter].render(job);
  const { attempts } = await db.job.findUniqueOrThrow({ where: { id: input.jobId }, select: { attempts: true } });
  const handle = await executor.launch({ jobId: input.jobId, attempt: attempts + 1, ...rendered, gpus: config.resources.gpusPerJob, deadlineSeconds: Math.ceil(remaining) });
  await db.$transaction(async (tx) => {
    await tx.job.update({
      where: { id: input.jobId },
      data: { state: "running", externalId: handle.externalId, outputUri: handle.workDir, attempts: { increment: 1 }, startedAt: new Date(), heartbeatAt: new Date() },
    });
    await recordEvent(tx, {
      runId: branch.runId,
      branchId: branch.id,
      type: "dispatch",
      actor: "system",
      payload: { jobId: input.jobId, kind: input.kind, executor: handle.executor, adapter: config.adapter, workDir: handle.workDir },
    });
  });
  await deps.producer.enqueue(QueueName.Monitor, { runId: branch.runId, branchId: branch.id, jobId: input.jobId }, { delay: deps.monitorEveryMs });
  deps.log(`dispatch: branch v${branch.version} job ${input.jobId} (${input.kind}) → ${handle.workDir}`);
  return "launched";
}
