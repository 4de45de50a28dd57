import { sameTraining, TrainerConfigError, UnsupportedFactorError } from "@evotrainer/adapters";
import { QueueName } from "@evotrainer/queue";
import { recordEvent } from "@evotrainer/db";
import type { LoopDeps } from "./deps.ts";
import { ACTIVE_JOB_STATES, buildJob, JOB_ENDING_RUN_STATUSES, resolveTrainerEnv, runConfigOf, type TrainerEnv } from "@evotrainer/core";
import { advanceRun } from "./advance-run.ts";
import { finishRunIfBudgetSpent } from "./finish-run.ts";
import { settleFailedAttempt } from "./failed-attempt.ts";
import { placeOnNode } from "./place-on-node.ts";


/** What dispatch answers while every fitting GPU slot is taken; the worker looks again later. */
export const WAITING_FOR_GPU = "waiting for a GPU slot";

/** Where a branch's training resumes from: the parent's checkpoint, on the node that holds it. */
interface StoredCheckpoint {
  path?: string;
  nodeId?: string;
}

/**
 * Starts training a queued branch: one train job row (created once, however often this step
 * runs), placed on free GPU slots when it runs on SSH nodes, rendered by the adapter, launched by
 * the executor, then watched by the monitor step.
 */
export async function dispatch(deps: LoopDeps, payload: { runId: string; branchId: string }): Promise<string> {
  const { db } = deps;
  const branch = await db.branch.findUniqueOrThrow({ where: { id: payload.branchId }, include: { run: true, recipe: true, parent: true } });
  if (branch.run.status === "finishing") return dispatchSealedEvaluation(deps, branch);
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

  const config = runConfigOf(branch.run);
  const job = await db.$transaction(async (tx) => {
    const existing = await tx.job.findFirst({ where: { branchId: branch.id, kind: "train", state: { in: [...ACTIVE_JOB_STATES] } } });
    if (existing) return existing;
    await tx.branch.update({ where: { id: branch.id }, data: { status: "training" } });
    return tx.job.create({ data: { branchId: branch.id, kind: "train", executor: config.executor, adapter: config.adapter, state: "pending" } });
  });
  if (job.state === "running" && job.externalId) {
    await deps.producer.enqueue(QueueName.Monitor, { runId: branch.runId, branchId: branch.id, jobId: job.id });
    return "already running";
  }
  const checkpoint = branch.parent?.checkpoint as StoredCheckpoint | null | undefined;
  return launchJob(deps, { jobId: job.id, kind: "train", branchId: branch.id, checkpoint });
}

/** The finishing run's sealed evaluation of its best branch: launched, or handed back to the monitor. */
async function dispatchSealedEvaluation(deps: LoopDeps, branch: { id: string; runId: string; checkpoint: unknown }): Promise<string> {
  const job = await deps.db.job.findFirst({ where: { branchId: branch.id, kind: "eval", state: { in: [...ACTIVE_JOB_STATES] } } });
  if (!job) return "no sealed evaluation to start";
  if (job.state === "running" && job.externalId) {
    await deps.producer.enqueue(QueueName.Monitor, { runId: branch.runId, branchId: branch.id, jobId: job.id });
    return "sealed evaluation already running";
  }
  await deps.failpoint("dispatch:sealed-evaluation");
  return launchJob(deps, { jobId: job.id, kind: "eval", branchId: branch.id, checkpoint: branch.checkpoint as StoredCheckpoint | null });
}

/**
 * Places (SSH), renders and launches one job row, then hands it to the monitor. Shared by training
 * and the sealed evaluation. A job that waits for GPUs answers WAITING_FOR_GPU; one that can never
 * be placed fails with the reason.
 */
export async function launchJob(
  deps: LoopDeps,
  input: { jobId: string; kind: "train" | "eval"; branchId: string; checkpoint: StoredCheckpoint | null | undefined },
): Promise<string> {
  const { db } = deps;
  const branch = await db.branch.findUniqueOrThrow({ where: { id: input.branchId }, include: { run: true, recipe: true, parent: { include: { recipe: true } } } });
  const config = runConfigOf(branch.run);
  let row = await db.job.findUniqueOrThrow({ where: { id: input.jobId } });
  if (row.executor === "kubernetes" && !row.nodeId) {
    const pool = config.resources.pool ? await db.gpuNode.findFirst({ where: { name: config.resources.pool, executor: "kubernetes", enabled: true } }) : null;
    if (!pool) {
      const reason = config.resources.pool ? `no enabled Kubernetes pool named "${config.resources.pool}"` : "a run with executor: kubernetes needs resources.pool";
      await failBeforeLaunch(deps, { jobId: row.id, kind: input.kind, runId: branch.runId, branchId: branch.id, reason });
      return `cannot be placed: ${reason}`;
    }
    row = await db.job.update({ where: { id: row.id }, data: { nodeId: pool.id, gpuCount: config.resources.gpusPerJob } });
  }
  // A Slurm cluster's scheduler places the job on its nodes: the job only names the cluster.
  if (row.executor === "slurm" && !row.nodeId) {
    const cluster = config.resources.cluster ? await db.gpuNode.findFirst({ where: { name: config.resources.cluster, executor: "slurm", enabled: true } }) : null;
    if (!cluster) {
      const reason = config.resources.cluster ? `no enabled Slurm cluster named "${config.resources.cluster}"` : "a run with executor: slurm needs resources.cluster";
      await failBeforeLaunch(deps, { jobId: row.id, kind: input.kind, runId: branch.runId, branchId: branch.id, reason });
      return `cannot be placed: ${reason}`;
    }
    row = await db.job.update({ where: { id: row.id }, data: { nodeId: cluster.id, gpuCount: config.resources.gpusPerJob } });
  }
  if (row.executor === "ssh" && row.state === "pending") {
    // A retry stays where its outputs are; a child goes where its parent's checkpoint is.
    const pin = row.nodeId ?? input.checkpoint?.nodeId;
    const placement = await placeOnNode(db, row.id, { gpus: config.resources.gpusPerJob, labels: config.resources.nodeLabels, ...(pin ? { nodeId: pin } : {}) });
    if (!placement.placed) {
      if (placement.canWait) return WAITING_FOR_GPU;
      await failBeforeLaunch(deps, { jobId: row.id, kind: input.kind, runId: branch.runId, branchId: branch.id, reason: placement.reason });
      return `cannot be placed: ${placement.reason}`;
    }
    row = await db.job.findUniqueOrThrow({ where: { id: input.jobId } });
  }
  const { executor } = await deps.executors.open(row);
  const workDir = executor.workDirFor(input.jobId);
  const remaining = Math.max(1, config.budget.gpuSeconds - branch.run.gpuSecondsUsed);
  const plan = {
    jobId: input.jobId,
    kind: input.kind,
    runId: branch.runId,
    branchId: branch.id,
    branchVersion: branch.version,
    recipe: JSON.parse(branch.recipe.canonical) as Record<string, unknown>,
    checkpoint: input.checkpoint?.path,
    workDir,
    maxSeconds: remaining,
    // A local job has what the run asks for; a placed one what it was given.
    gpuCount: row.executor === "local" ? config.resources.gpusPerJob : row.gpuCount,
    attempt: row.attempts + 1,
  };
  const job = buildJob(config, plan);
  const adapter = deps.adapters[config.adapter];
  let rendered: ReturnType<typeof adapter.render>;
  try {
    rendered = adapter.render(job);
    // A candidate its trainer is told nothing new about would be trained and judged as a change it is not.
    if (input.kind === "train" && branch.kind === "candidate" && branch.parent && sameTraining(adapter, job, buildJob(config, { ...plan, recipe: JSON.parse(branch.parent.recipe.canonical) as Record<string, unknown> }))) {
      await cancelNoOpCandidate(deps, { jobId: row.id, runId: branch.runId, branchId: branch.id, parentVersion: branch.parent.version, adapter: config.adapter });
      return "not dispatched: it renders its parent's job";
    }
  } catch (error) {
    // Rendering builds strings from the run's config and the branch's recipe: it fails the same way
    // every time, so the job fails once, as a config error, rather than the queue retrying it.
    const refused = error instanceof UnsupportedFactorError ? { factor: error.factor, adapter: error.trainer } : error instanceof TrainerConfigError ? { setting: error.field } : { setting: "trainer" };
    const reason = error instanceof UnsupportedFactorError || error instanceof TrainerConfigError ? error.message : `the ${config.adapter} adapter cannot render this job: ${(error as Error).message}`;
    await failBeforeLaunch(deps, { jobId: row.id, kind: input.kind, runId: branch.runId, branchId: branch.id, reason, ...refused });
    return `cannot be rendered: ${reason}`;
  }
  // trainer.env: literals and the worker's own variables, under what the adapter and the placement set.
  const trainerEnv = resolveTrainerEnv(config.adapter === "gym" ? undefined : (job.adapter as { env?: TrainerEnv }).env, process.env);
  if (!trainerEnv.ok) {
    await failBeforeLaunch(deps, { jobId: row.id, kind: input.kind, runId: branch.runId, branchId: branch.id, reason: trainerEnv.message, setting: "trainer.env" });
    return `cannot be launched: ${trainerEnv.message}`;
  }
  const env = { ...trainerEnv.env, ...(row.gpuIndexes.length > 0 ? { CUDA_VISIBLE_DEVICES: row.gpuIndexes.join(",") } : {}), ...rendered.env };
  let handle: Awaited<ReturnType<typeof executor.launch>>;
  try {
    handle = await executor.launch({
      jobId: input.jobId,
      attempt: row.attempts + 1,
      ...rendered,
      env,
      gpus: config.resources.gpusPerJob,
      deadlineSeconds: Math.ceil(remaining),
    });
  } catch (error) {
    return launchFailed(deps, { jobId: input.jobId, kind: input.kind, branch }, error as Error);
  }
  // Only a row still active, of a run not being stopped, takes the process: a stop or a cancel may
  // have come while it launched, and then nothing else knows of the process (see cancelActiveJob).
  const recorded = await db.$transaction(async (tx) => {
    const moved = await tx.job.updateMany({
      where: { id: input.jobId, state: { in: [...ACTIVE_JOB_STATES] }, branch: { run: { status: { notIn: [...JOB_ENDING_RUN_STATUSES] } } } },
      data: { state: "running", externalId: handle.externalId, outputUri: handle.workDir, attempts: { increment: 1 }, startedAt: new Date(), heartbeatAt: new Date() },
    });
    if (moved.count === 0) return false;
    await recordEvent(tx, {
      runId: branch.runId,
      branchId: branch.id,
      type: "dispatch",
      actor: "system",
      payload: { jobId: input.jobId, kind: input.kind, executor: handle.executor, adapter: config.adapter, workDir: handle.workDir, nodeId: row.nodeId, gpuIndexes: row.gpuIndexes },
    });
    return true;
  });
  if (!recorded) {
    await executor.cancel(handle);
    return "cancelled while it launched";
  }
  await deps.producer.enqueue(QueueName.Monitor, { runId: branch.runId, branchId: branch.id, jobId: input.jobId }, { delay: deps.monitorEveryMs });
  deps.log(`dispatch: branch v${branch.version} job ${input.jobId} (${input.kind}) → ${handle.executor}:${handle.workDir}`);
  return "launched";
}

/**
 * A candidate whose rendered job is its parent's (its intervention changes nothing the trainer is
 * told): not trained and not judged, its job and branch cancelled with an event that says so, and
 * the round goes on without it.
 */
async function cancelNoOpCandidate(deps: LoopDeps, input: { jobId: string; runId: string; branchId: string; parentVersion: number; adapter: string }): Promise<void> {
  const message = `its ${input.adapter} job renders exactly as its parent's (v${input.parentVersion}): the intervention changes nothing the trainer is told, so it is not trained or judged`;
  await deps.db.$transaction(async (tx) => {
    await tx.job.update({ where: { id: input.jobId }, data: { state: "cancelled", message, finishedAt: new Date() } });
    await tx.branch.update({ where: { id: input.branchId }, data: { status: "cancelled" } });
    await recordEvent(tx, { runId: input.runId, branchId: input.branchId, type: "no_op_intervention", actor: "system", payload: { jobId: input.jobId, adapter: input.adapter, message } });
  });
  await advanceRun(deps, input.runId);
}

/** A job that can never start (no node fits, or its trainer refuses a factor or a setting): failed once, with an event saying why. */
async function failBeforeLaunch(
  deps: LoopDeps,
  input: { jobId: string; kind: "train" | "eval"; runId: string; branchId: string; reason: string; factor?: string; adapter?: string; setting?: string },
): Promise<void> {
  const message = input.factor || input.setting ? input.reason : `${input.reason}: add or enable a node (\`evotrainer nodes sync\`) or change the run's resources`;
  const refused = input.factor ? { factor: input.factor, adapter: input.adapter } : input.setting ? { setting: input.setting } : {};
  await deps.db.$transaction(async (tx) => {
    await tx.job.update({ where: { id: input.jobId }, data: { state: "failed", failureClass: "config_error", message, finishedAt: new Date() } });
    if (input.kind === "train") await tx.branch.update({ where: { id: input.branchId }, data: { status: "failed" } });
    await recordEvent(tx, { runId: input.runId, branchId: input.branchId, type: "failure", actor: "system", payload: { jobId: input.jobId, kind: input.kind, failureClass: "config_error", message, ...refused } });
  });
  if (input.kind === "train") await advanceRun(deps, input.runId);
}

/**
 * A launch that threw (an unwritable job directory, a node refusing the upload) is a failed attempt
 * like any other: it counts against the job's attempts, so a launch that always throws gives its
 * branch up after `maxAttempts` instead of being dispatched again forever.
 */
async function launchFailed(
  deps: LoopDeps,
  input: { jobId: string; kind: "train" | "eval"; branch: { id: string; runId: string; parentId: string | null; round: number } },
  error: Error,
): Promise<string> {
  const counted = await deps.db.job.updateMany({ where: { id: input.jobId, state: { in: [...ACTIVE_JOB_STATES] } }, data: { attempts: { increment: 1 } } });
  if (counted.count === 0) return "cancelled while it launched";
  const job = await deps.db.job.findUniqueOrThrow({ where: { id: input.jobId } });
  deps.log(`dispatch: job ${input.jobId} could not be launched (attempt ${job.attempts} of ${job.maxAttempts}): ${error.message}`);
  return settleFailedAttempt(
    deps,
    { ...job, kind: input.kind, branch: input.branch },
    { failureClass: "crash", exitCode: null, retriable: true, message: `the job could not be launched: ${error.message}` },
  );
}
