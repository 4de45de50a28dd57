import { isActiveJob, type JobState, type RunStatus } from "./statuses.ts";

/** What a person can do to a whole run (approver or admin). */
export type RunControl =
  | { kind: "pause" }
  | { kind: "resume" }
  /** sealed: finish with the sealed evaluation of the best branch, or skip it and end cancelled. */
  | { kind: "stop"; sealed: boolean }
  /** The new total GPU-seconds budget, not an increment, so repeating the request changes nothing. */
  | { kind: "extend_budget"; gpuSeconds: number };

export type RunControlOutcome =
  | { outcome: "applied"; to: RunStatus }
  | { outcome: "already"; status: RunStatus; message: string }
  | { outcome: "refused"; message: string };

const OVER: readonly RunStatus[] = ["completed", "failed", "cancelled"];

/**
 * The rules of pause, resume, stop and a budget extension over a run's status. Every control is
 * safe to repeat: asking for the state a run is already in answers `already`, not an error.
 */
export function controlRun(status: RunStatus, control: RunControl, budgetGpuSeconds: number): RunControlOutcome {
  const over = OVER.includes(status);
  switch (control.kind) {
    case "pause":
      if (status === "paused") return { outcome: "already", status, message: "the run is already paused" };
      if (status === "running" || status === "pending") return { outcome: "applied", to: "paused" };
      return { outcome: "refused", message: over ? `the run is ${status}: there is nothing to pause` : `the run is ${status}: stop it instead` };
    case "resume":
      if (status === "running") return { outcome: "already", status, message: "the run is already running" };
      if (status === "paused") return { outcome: "applied", to: "running" };
      return { outcome: "refused", message: `the run is ${status}: only a paused run resumes` };
    case "stop":
      if (over) return { outcome: "already", status, message: `the run is already ${status}` };
      if (status === "stopping") return { outcome: "already", status, message: "the run is already stopping" };
      // Finishing means the sealed evaluation runs: stopping without it cancels that job too.
      if (status === "finishing") return control.sealed ? { outcome: "already", status, message: "the run is already finishing with its sealed evaluation" } : { outcome: "applied", to: "stopping" };
      return { outcome: "applied", to: "stopping" };
    case "extend_budget":
      if (over) return { outcome: "refused", message: `the run is ${status}: its budget no longer matters` };
      if (!Number.isFinite(control.gpuSeconds) || control.gpuSeconds <= 0) return { outcome: "refused", message: "the budget is a positive number of GPU-seconds" };
      if (control.gpuSeconds === budgetGpuSeconds) return { outcome: "already", status, message: `the budget is already ${budgetGpuSeconds} GPU-seconds` };
      if (control.gpuSeconds < budgetGpuSeconds) return { outcome: "refused", message: `${control.gpuSeconds} GPU-seconds is below the current budget of ${budgetGpuSeconds}: a budget is only extended` };
      return { outcome: "applied", to: status };
  }
}

/**
 * Cancelling one job: a training job still pending or running, once. The sealed evaluation is the
 * run's ending; it is skipped by stopping the run without it, not by cancelling the job.
 */
export type JobCancelOutcome = { outcome: "applied" } | { outcome: "already"; message: string } | { outcome: "refused"; message: string };

export function cancelJobRule(job: { state: JobState; kind: "train" | "eval"; cancelRequested: boolean }): JobCancelOutcome {
  // Asked before: answered the same whether the worker has carried it out yet or not.
  if (job.cancelRequested) return { outcome: "already", message: job.state === "cancelled" ? "the job is already cancelled" : "cancelling this job was already asked for" };
  if (!isActiveJob(job.state)) return { outcome: "refused", message: `the job is ${job.state}: there is nothing to cancel` };
  if (job.kind === "eval") return { outcome: "refused", message: "this is the sealed evaluation: stop the run with --skip-sealed to skip it" };
  return { outcome: "applied" };
}
