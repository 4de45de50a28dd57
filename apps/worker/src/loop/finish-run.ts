import { json, recordEvent } from "@evotrainer/db";
import { budgetExhausted } from "./budget.ts";
import type { LoopDeps } from "./deps.ts";
import { runConfigOf, runWithoutBest, type EndingBranch } from "@evotrainer/core";
import { QueueName } from "@evotrainer/queue";

/** Budget figures of a run as its rows stand. */
export async function budgetUsed(deps: LoopDeps, runId: string) {
  const run = await deps.db.run.findUniqueOrThrow({ where: { id: runId } });
  // Controls are not candidates: they spend GPU time (counted in run.gpuSecondsUsed) but no branch slot.
  const branches = await deps.db.branch.count({ where: { runId, parentId: { not: null }, kind: "candidate" } });
  return { run, config: runConfigOf(run), used: { gpuSeconds: run.gpuSecondsUsed, branches, rounds: run.round } };
}

/** When the GPU budget is gone, no new job may start. Returns whether it is gone. */
export async function finishRunIfBudgetSpent(deps: LoopDeps, runId: string): Promise<boolean> {
  const { run, config } = await budgetUsed(deps, runId);
  return run.gpuSecondsUsed >= config.budget.gpuSeconds;
}

/**
 * Ends a run whose branches have all settled: the run moves to `finishing` and the best-so-far
 * branch's evaluation on the sealed split is created as an ordinary job and put on Dispatch, so it is
 * placed, retried and reconciled like any job; the monitor completes the run with its result.
 */
export async function finishRun(deps: LoopDeps, runId: string, reason: string, from: "running" | "stopping" = "running"): Promise<string> {
  const { db } = deps;
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, include: { bestBranch: true } });
  if (run.status !== from) return `run is ${run.status}`;
  const best = run.bestBranch;
  if (!best) {
    const ended = runWithoutBest(from, await endingBranches(deps, runId));
    await db.$transaction(async (tx) => {
      const moved = await tx.run.updateMany({ where: { id: runId, status: from }, data: { status: ended.status, finishedAt: new Date(), finalReport: json({ sealed: null, reason, error: ended.error }) } });
      if (moved.count === 0) return;
      await recordEvent(tx, { runId, type: "run_finished", actor: "system", payload: { reason, sealed: null, error: ended.error, ...(from === "stopping" ? { stopped: true } : {}) } });
    });
    return ended.status === "failed" ? `failed: ${ended.error}` : "cancelled: stopped before any branch finished training";
  }
  await db.$transaction(async (tx) => {
    const moved = await tx.run.updateMany({ where: { id: runId, status: from }, data: { status: "finishing" } });
    if (moved.count === 0) return;
    await recordEvent(tx, { runId, branchId: best.id, type: "run_finishing", actor: "system", payload: { reason, evaluating: "sealed split", branchVersion: best.version } });
    const config = runConfigOf(run);
    await tx.job.create({ data: { branchId: best.id, kind: "eval", executor: config.executor, adapter: config.adapter, state: "pending" } });
  });
  await deps.producer.enqueue(QueueName.Dispatch, { runId, branchId: best.id });
  return "finishing: sealed evaluation queued";
}

/** The run's branches with their last failed job, for saying why a run without a best branch ended. */
async function endingBranches(deps: LoopDeps, runId: string): Promise<EndingBranch[]> {
  const branches = await deps.db.branch.findMany({
    where: { runId },
    select: { version: true, status: true, jobs: { where: { state: "failed" }, orderBy: { createdAt: "desc" }, take: 1, select: { failureClass: true, message: true } } },
  });
  return branches.map((b) => ({ version: b.version, status: b.status, failure: b.jobs[0] ?? null }));
}
