import { classifyExit, exitCodes, type Status } from "@evotrainer/contract";
import type { ExecutorFailureClass, JobObservation } from "./executor.ts";

/** What an executor found in the directory of a job whose process is gone. */
export interface EndedJob {
  /** `null` when the process is gone without writing one (machine restart, killed wrapper). */
  exitCode: number | null;
  /** Whether the control plane cancelled the job (then a kill is ours, not a failure). */
  cancelled: boolean;
  /** The trainer's status.json (`null` when absent or invalid); read only for a failure. */
  status: () => Promise<Status | null>;
  /** The end of job.log; read only for a failure. */
  logTail: () => Promise<string>;
}

// PyTorch's messages for an allocation the GPU could not satisfy (old and new exception names).
const GPU_OOM = /CUDA out of memory|torch(?:\.cuda)?\.OutOfMemoryError/;

// Running these again fails the same way: a bad config, bad data, or a model too big for its GPU.
// A host OOM kill stays retriable: on a shared node it is often a neighbour's fault, and the
// worker's attempt cap bounds the retries.
const notRetriable = new Set<ExecutorFailureClass>(["config_error", "data_error", "gpu_oom"]);

// Classes a trainer reports when it cannot tell more; the log can still show a GPU OOM.
const generic = new Set<ExecutorFailureClass>(["crash", "oom"]);

/** How much of job.log to search for the cause of a failure. */
export const LOG_TAIL_BYTES = 64 * 1024;

function lastLineMatching(text: string, pattern: RegExp): string | null {
  const lines = text.split("\n").filter((line) => pattern.test(line));
  const last = lines.at(-1)?.trim();
  return last ? last.slice(0, 500) : null;
}

/**
 * The shell's own words for a command it could not start (they name the path, e.g. a wrong
 * trainer.python), for the codes 126 and 127; `null` for any other code.
 */
function commandNotRun(exitCode: number, log: string): string | null {
  if (exitCode !== exitCodes.notFound && exitCode !== exitCodes.notExecutable) return null;
  const what = exitCode === exitCodes.notFound ? "was not found" : "is not executable";
  const said = lastLineMatching(log, /not found|No such file|Permission denied|cannot execute/i);
  return `the job's command ${what} (exit ${exitCode}; check trainer.python and the job's command)${said ? `: ${said}` : ""}`;
}

function killedBy(signal: NodeJS.Signals, oomSuspect: boolean): string {
  return oomSuspect ? `killed by ${signal}, not by EvoTrainer: the kernel's out-of-memory killer or another process (the host's dmesg tells which)` : `killed by ${signal}`;
}

/**
 * Classifies a job whose process is gone, the same way for every executor: a zero exit succeeded;
 * a cancelled job is cancelled whatever its code; otherwise the trainer's own status.json wins,
 * then a GPU OOM seen in the log, then the exit code. A SIGKILL we did not send is a crash whose
 * message names the suspects: only an executor that sees the cause (a pod's OOMKilled) says "oom".
 */
export async function classifyEndedJob(job: EndedJob): Promise<JobObservation> {
  if (job.exitCode === 0) return { state: "succeeded" };
  if (job.cancelled) return { state: "cancelled" };
  if (job.exitCode === null) {
    return {
      state: "failed",
      exitCode: null,
      failureClass: "crash",
      retriable: true,
      message: "the job's process is gone without an exit code (machine restart or killed wrapper)",
    };
  }
  const [status, log] = await Promise.all([job.status(), job.logTail()]);
  const reported = status?.state === "failed" ? status : null;
  const exit = classifyExit(job.exitCode);
  let failureClass: ExecutorFailureClass = reported?.failureClass ?? exit.failureClass ?? "crash";
  const gpuOom = generic.has(failureClass) ? lastLineMatching(log, GPU_OOM) : null;
  if (gpuOom) failureClass = "gpu_oom";
  const message =
    reported?.message ?? gpuOom ?? commandNotRun(job.exitCode, log) ?? (exit.signal ? killedBy(exit.signal, exit.oomSuspect) : `exited with code ${job.exitCode}`);
  return { state: "failed", exitCode: job.exitCode, failureClass, retriable: !notRetriable.has(failureClass), message };
}
