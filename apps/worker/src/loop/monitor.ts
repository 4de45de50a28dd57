import { readdir } from "node:fs/promises";
import { resolve } from "node:path";
import { paths, readCheckpoint, readEval, parseContractPath, type EvalResult } from "@evotrainer/contract";
import { json, recordEvent } from "@evotrainer/db";
import { QueueName } from "@evotrainer/queue";
import type { JobHandle } from "@evotrainer/executors";
import { advanceRun } from "./advance-run.ts";
import type { LoopDeps } from "./deps.ts";
import { ingestJobOutputs } from "./ingest-outputs.ts";
import { runConfigOf } from "@evotrainer/core";

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
  const { branch } = job;
  const config = runConfigOf(branch.run);
  const handle: JobHandle = { executor: job.executor, externalId: job.externalId, workDir: job.outputUri };
  const outputDir = `${job.outputUri}/output`;

  // Observe first: once a job has ended its files are complete, so this pass ingests all of them.
  const observation = await deps.executor.observe(handle);
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
  const seconds = (now.getTime() - (job.heartbeatAt ?? job.startedAt ?? now).getTime()) / 1000;
  await db.$transaction([
    db.job.update({ where: { id: job.id }, data: { heartbeatAt: now, gpuSeconds: { increment: seconds } } }),
    db.branch.update({ where: { id: branch.id }, data: { gpuSecondsUsed: { increment: seconds } } }),
    db.run.update({ where: { id: branch.runId }, data: { gpuSecondsUsed: { increment: seconds } } }),
  ]);
  if (ingested.quarantined > 0) deps.log(`monitor: job ${job.id} quarantined ${ingested.quarantined} line(s)`);

  switch (observation.state) {
    case "running":
      return "running";
    case "succeeded":
      return job.kind === "train" ? trainingSucceeded(deps, job.id, outputDir) : sealedEvaluationSucceeded(deps, job.id, outputDir);
    case "cancelled":
      await db.$transaction([
        db.job.update({ where: { id: job.id }, data: { state: "cancelled", finishedAt: now } }),
        db.branch.update({ where: { id: branch.id }, data: { status: "cancelled" } }),
      ]);
      await advanceRun(deps, branch.runId);
      return "cancelled";
    case "failed": {
      const logTail = await deps.executor.logTail(handle, LOG_TAIL_BYTES);
      const failure = { failureClass: observation.failureClass, exitCode: observation.exitCode, message: observation.message };
      if (observation.retriable && job.attempts < job.maxAttempts && job.kind === "train") {
        const delay = 1_000 * 2 ** job.attempts;
        await db.$transaction(async (tx) => {
          await tx.job.update({ where: { id: job.id }, data: { state: "pending", externalId: null, ...failure, logTail } });
          await recordEvent(tx, { runId: branch.runId, branchId: branch.id, type: "job_retry", actor: "system", payload: { jobId: job.id, attempt: job.attempts, retryInMs: delay, ...failure } });
        });
        await deps.producer.enqueue(QueueName.Dispatch, { runId: branch.runId, branchId: branch.id }, { delay });
        return `retrying in ${delay} ms`;
      }
      await db.$transaction(async (tx) => {
        await tx.job.update({ where: { id: job.id }, data: { state: "failed", finishedAt: now, ...failure, logTail } });
        if (job.kind === "train") await tx.branch.update({ where: { id: branch.id }, data: { status: "failed" } });
        else await tx.run.update({ where: { id: branch.runId }, data: { status: "completed", finishedAt: now, finalReport: json({ sealed: null, error: failure }) } });
        await recordEvent(tx, { runId: branch.runId, branchId: branch.id, type: "failure", actor: "system", payload: { jobId: job.id, kind: job.kind, ...failure, logTail: logTail.slice(-2_000) } });
      });
      if (job.kind === "train") await advanceRun(deps, branch.runId);
      return `failed: ${observation.failureClass}`;
    }
  }
}

async function trainingSucceeded(deps: LoopDeps, jobId: string, outputDir: string): Promise<string> {
  const { db } = deps;
  const checkpoint = await readCheckpoint(outputDir);
  const job = await db.$transaction(async (tx) => {
    const job = await tx.job.update({ where: { id: jobId }, data: { state: "succeeded", finishedAt: new Date(), exitCode: 0 }, include: { branch: true } });
    await tx.branch.update({
      where: { id: job.branchId },
      data: { status: "evaluating", checkpoint: checkpoint ? json({ ...checkpoint, path: resolve(outputDir, checkpoint.path) }) : undefined },
    });
    const rollouts = await tx.rollout.count({ where: { branchId: job.branchId } });
    await recordEvent(tx, { runId: job.branch.runId, branchId: job.branchId, type: "training_finished", actor: "system", payload: { jobId, rollouts, gpuSeconds: job.gpuSeconds } });
    return job;
  });
  await deps.producer.enqueue(QueueName.Verdict, { runId: job.branch.runId, branchId: job.branchId });
  return "trained";
}

async function sealedEvaluationSucceeded(deps: LoopDeps, jobId: string, outputDir: string): Promise<string> {
  const { db } = deps;
  const result = await latestEval(outputDir);
  const sealed = result?.splits.sealed;
  await db.$transaction(async (tx) => {
    const job = await tx.job.update({ where: { id: jobId }, data: { state: "succeeded", finishedAt: new Date(), exitCode: 0 }, include: { branch: true } });
    const report = { sealed: sealed ? { branchId: job.branchId, score: sealed.score, tasks: sealed.tasks.length } : null };
    await tx.run.update({ where: { id: job.branch.runId }, data: { status: "completed", finishedAt: new Date(), finalReport: json(report) } });
    await recordEvent(tx, { runId: job.branch.runId, branchId: job.branchId, type: "run_finished", actor: "system", payload: json(report) });
  });
  return "sealed evaluated";
}
