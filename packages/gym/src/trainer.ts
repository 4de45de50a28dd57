import { rm } from "node:fs/promises";
import { dirname } from "node:path";
import {
  appendMetrics,
  appendRollouts,
  exitCodeFor,
  paths,
  readCheckpoint,
  readJob,
  writeEval,
  writeHeartbeat,
  writeStatus,
  type EvalResult,
  type FailureClass,
  type HeartbeatPhase,
  type Job,
  type Status,
} from "@evotrainer/contract";
import { CheckpointError, loadCheckpoint, saveCheckpoint } from "./checkpoint.ts";
import { basePolicy } from "./domains.ts";
import { evaluateSplit } from "./evaluate.ts";
import { GymConfigError, resolveSetup, type GymSetup } from "./gym-config.ts";
import type { Policy } from "./policy.ts";
import { rolloutRow } from "./rollout-rows.ts";
import { createTraining } from "./training.ts";

export interface RunGymJobOptions {
  // Aborting asks the trainer to stop after the current step, as on preemption: exit 75, resumable.
  signal?: AbortSignal;
  log?: (line: string) => void;
}

export interface GymJobResult {
  exitCode: number;
  // null when the job file itself could not be read, so there was no output dir to report in.
  status: Status | null;
}

/**
 * Runs one evo.job/v1 job on the gym: trains `budget.maxSteps` GRPO steps (or only evaluates, for
 * an eval job), writing every contract file under the job's output dir, and reports how it ended
 * in status.json and the returned exit code. A rerun of an interrupted job resumes from its own
 * latest checkpoint.
 */
export async function runGymJob(jobFile: string, options: RunGymJobOptions = {}): Promise<GymJobResult> {
  const log = options.log ?? (() => {});
  let job: Job;
  try {
    job = await readJob(jobFile);
  } catch (error) {
    log(`config error: ${(error as Error).message}`);
    return { exitCode: exitCodeFor("config_error"), status: null };
  }
  const outputDir = job.outputDir;
  let lastStep: number | null = null;
  // This attempt's start on the job's own clock: every beat carries it, and GPU-seconds are charged from it.
  let startedAt: string | undefined = new Date().toISOString();
  const beat = (step: number, phase: HeartbeatPhase, progress: number, message?: string) =>
    writeHeartbeat(outputDir, { step, time: new Date().toISOString(), ...(startedAt ? { startedAt } : {}), phase, progress: Math.min(1, progress), ...(message ? { message } : {}) });
  const finish = async (failure: FailureClass | null, message: string): Promise<GymJobResult> => {
    const exitCode = failure === null ? 0 : exitCodeFor(failure);
    // The last beat marks the attempt's end, failed or not, so its whole run is charged.
    await beat(lastStep ?? 0, "teardown", 1);
    const status = await writeStatus(outputDir, {
      state: failure === null ? "succeeded" : "failed",
      exitCode,
      ...(failure === null ? {} : { failureClass: failure }),
      lastStep,
      message,
    });
    log(message);
    return { exitCode, status };
  };
  try {
    let setup: GymSetup;
    try {
      setup = resolveSetup(job);
    } catch (error) {
      if (error instanceof GymConfigError) return await finish("config_error", error.message);
      throw error;
    }
    if (!setup.options.heartbeatStartedAt) startedAt = undefined;
    await writeStatus(outputDir, { state: "running", lastStep: null });
    await beat(0, "setup", 0, `gym ${setup.domain}: loading the policy`);

    let start: { policy: Policy; step: number };
    try {
      start = await startingPolicy(job, setup, dirname(jobFile));
    } catch (error) {
      if (error instanceof CheckpointError) return await finish("data_error", error.message);
      throw error;
    }
    lastStep = start.step > 0 ? start.step : null;

    if (job.kind === "eval") {
      await beat(start.step, "eval", 0.5, "evaluating");
      const score = await evaluate(job, start.policy, start.step);
      lastStep = start.step;
      return await finish(null, `evaluated the checkpoint of step ${start.step}: ${score}`);
    }

    const maxSteps = job.budget.maxSteps!;
    const training = createTraining(
      { domain: setup.domain, recipe: setup.recipe, seed: job.seed, ...setup.options },
      start.policy,
    );
    const began = Date.now();
    const pace = setup.options.stepsPerSecond === undefined ? 0 : 1000 / setup.options.stepsPerSecond;
    let stopped = "";
    for (let step = start.step + 1; step <= maxSteps; step++) {
      if (options.signal?.aborted) {
        return await finish("preempted", `preempted after step ${lastStep ?? 0}; a rerun resumes from its checkpoint`);
      }
      if ((Date.now() - began) / 1000 > job.budget.maxSeconds) {
        stopped = ` (stopped by the ${job.budget.maxSeconds}s time budget)`;
        break;
      }
      const stepBegan = Date.now();
      await beat(step, "rollout", (step - 1) / maxSteps);
      const result = training.runStep(step);
      await beat(step, "update", (step - 0.5) / maxSteps);
      const trainFile = paths(outputDir).rolloutsFile("train", step);
      // A resumed job redoes the steps after its checkpoint; their partial files are replaced, not extended.
      await rm(trainFile, { force: true });
      const rows = result.batch.flatMap((group, k) => group.map((s) => ({ ...rolloutRow("train", step, `${step}-${k}-${s.task.id}`, s), attempt: job.attempt })));
      await appendRollouts(outputDir, "train", step, rows);
      await beat(step, "checkpoint", step / maxSteps);
      await saveCheckpoint(outputDir, training.policy, step);
      await appendMetrics(outputDir, step, { ...result.metrics, "timing_s/step": (Date.now() - stepBegan) / 1000 }, job.attempt);
      lastStep = step;
      log(`step ${step}/${maxSteps} score ${result.metrics["critic/score/mean"]!.toFixed(3)} entropy ${result.metrics["actor/entropy"]!.toFixed(3)}`);
      if (setup.options.evalEvery > 0 && step % setup.options.evalEvery === 0 && step < maxSteps) {
        await beat(step, "eval", step / maxSteps);
        await evaluate(job, training.policy, step);
      }
      const wait = pace - (Date.now() - stepBegan);
      if (wait > 0) await new Promise((done) => setTimeout(done, wait));
    }
    const final = lastStep ?? 0;
    await beat(final, "eval", 1, "final evaluation");
    const score = await evaluate(job, training.policy, final);
    return await finish(null, `trained ${final - start.step} steps${stopped}; ${score}`);
  } catch (error) {
    return await finish("crash", `gym crashed: ${(error as Error).stack ?? String(error)}`);
  }
}

/** Relative checkpoint references resolve against the job file's directory. */
async function startingPolicy(job: Job, setup: GymSetup, jobDir: string): Promise<{ policy: Policy; step: number }> {
  // A rerun of this job (after preemption or a crash) continues from its own latest checkpoint.
  if (job.kind === "train" && (await readCheckpoint(job.outputDir)) !== null) {
    return loadCheckpoint(job.outputDir, setup.domain, process.cwd());
  }
  if (job.policy.checkpoint !== undefined) {
    const parent = await loadCheckpoint(job.policy.checkpoint, setup.domain, jobDir);
    // A child branch counts its own steps; an eval job reports the checkpoint's.
    return job.kind === "train" ? { policy: parent.policy, step: 0 } : parent;
  }
  return { policy: basePolicy(setup.domain), step: 0 };
}

/** Evaluates the job's locked splits at `step`, writes eval/step_N.json and its rollouts; returns a summary. */
async function evaluate(job: Job, policy: Policy, step: number): Promise<string> {
  const splits: EvalResult["splits"] = {};
  await rm(paths(job.outputDir).rolloutsFile("eval", step), { force: true });
  for (const split of job.evalSplits) {
    const { result, rows } = evaluateSplit(policy, split, job.evaluation[split], job.evaluation.seed, step);
    splits[split] = result;
    await appendRollouts(job.outputDir, "eval", step, rows.map((row) => ({ ...row, attempt: job.attempt })));
  }
  await writeEval(job.outputDir, { step, splits });
  return Object.entries(splits)
    .map(([split, r]) => `${split} score ${r.score.toFixed(3)}`)
    .join(", ");
}
