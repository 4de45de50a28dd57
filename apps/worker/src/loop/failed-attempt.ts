import { rm } from "node:fs/promises";
import { jobRetryRule, type JobState } from "@evotrainer/core";
import { json, recordEvent } from "@evotrainer/db";
import type { ExecutorFailureClass } from "@evotrainer/executors";
import { QueueName } from "@evotrainer/queue";
import { advanceRun } from "./advance-run.ts";
import type { LoopDeps } from "./deps.ts";
import { wakeRound } from "./round-controls.ts";

export const SETTLED_ELSEWHERE = "settled by another pass";

export interface AttemptFailure {
  failureClass: ExecutorFailureClass;
  exitCode: number | null;
  message: string;
  retriable: boolean;
  logTail?: string;
}

interface FailedJob {
  id: string;
  /** The state its caller saw it in: only a row still in it is settled, so two passes settle an attempt once. */
  state: JobState;
  kind: "train" | "eval";
  executor: string;
  /** Attempts made so far, the failed one included. */
  attempts: number;
  maxAttempts: number;
  branch: { id: string; runId: string; parentId: string | null; round: number };
}

/**
 * Settles a failed attempt of a job, whether its trainer failed or its launch threw: core's retry
 * rule either puts the job back to pending and dispatches it again after a backoff, or gives it up:
 * the job and its branch fail (a sealed evaluation ends its run), with a failure event, which
 * notifies, and the run goes on without the branch.
 */
export async function settleFailedAttempt(deps: LoopDeps, job: FailedJob, failure: AttemptFailure, localDir?: string): Promise<string> {
  const { db } = deps;
  const { branch } = job;
  const { retriable, logTail = null, ...recorded } = failure;
  const rule = jobRetryRule({ retriable, attempts: job.attempts, maxAttempts: job.maxAttempts });
  if (rule.outcome === "retry") {
    // A lost node's files are gone with it: the retry is placed anew.
    const moved = failure.failureClass === "node_lost";
    const settled = await db.$transaction(async (tx) => {
      const settled = await tx.job.updateMany({
        where: { id: job.id, state: job.state },
        data: { state: "pending", externalId: null, ...recorded, logTail, ...(moved ? { nodeId: null, gpuIndexes: [] } : {}) },
      });
      if (settled.count === 0) return false;
      // A resumed trainer rewrites the files of the steps after its checkpoint: the retry's outputs
      // are read from their start (ingest skips rollouts it already has).
      await tx.ingestCursor.deleteMany({ where: { jobId: job.id } });
      await recordEvent(tx, { runId: branch.runId, branchId: branch.id, type: "job_retry", actor: "system", payload: { jobId: job.id, attempt: job.attempts, retryInMs: rule.delayMs, ...recorded } });
      return true;
    });
    if (!settled) return SETTLED_ELSEWHERE;
    if (job.executor === "ssh" && localDir) await rm(localDir, { recursive: true, force: true });
    await deps.producer.enqueue(QueueName.Dispatch, { runId: branch.runId, branchId: branch.id }, { delay: rule.delayMs });
    return `retrying in ${rule.delayMs} ms`;
  }
  const now = new Date();
  const message = rule.reason === "attempts_spent" && job.attempts > 1 ? `${failure.message} (gave up after ${job.attempts} attempts)` : failure.message;
  const settled = await db.$transaction(async (tx) => {
    const settled = await tx.job.updateMany({ where: { id: job.id, state: job.state }, data: { state: "failed", finishedAt: now, ...recorded, message, logTail } });
    if (settled.count === 0) return false;
    if (job.kind === "train") await tx.branch.update({ where: { id: branch.id }, data: { status: "failed" } });
    else await tx.run.update({ where: { id: branch.runId }, data: { status: "completed", finishedAt: now, finalReport: json({ sealed: null, error: { ...recorded, message } }) } });
    await recordEvent(tx, { runId: branch.runId, branchId: branch.id, type: "failure", actor: "system", payload: { jobId: job.id, kind: job.kind, attempts: job.attempts, ...recorded, message, ...(logTail ? { logTail: logTail.slice(-2_000) } : {}) } });
    return true;
  });
  if (!settled) return SETTLED_ELSEWHERE;
  if (job.kind === "train") {
    // Siblings judged as a round were waiting for this branch; they go on without it.
    await wakeRound(deps, branch);
    await advanceRun(deps, branch.runId);
  }
  return `failed: ${failure.failureClass}`;
}
