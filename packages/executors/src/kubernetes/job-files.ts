/** Files the wrapper and the executor keep in a job's directory, beside the contract's `output/`. */
export const jobFiles = {
  /** The command's combined stdout/stderr; on the volume it outlives the pod. */
  log: "job.log",
  /** The command's exit code, written by the wrapper (atomically) when it ends. */
  exitCode: "exit_code",
  /** Written by `cancel`, holding the name of the Kubernetes Job it cancelled. */
  cancelled: "cancelled",
} as const;
