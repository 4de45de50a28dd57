import type { FailureClass } from "@evotrainer/contract";

/** What to run: a command in the job's directory, with these files placed there first. */
export interface LaunchSpec {
  jobId: string;
  /**
   * 1 for the first launch of a job, +1 per retry. Launching an attempt that is already running
   * (the control plane crashed right after launching it) adopts that process instead of starting another.
   */
  attempt: number;
  command: string[];
  env: Record<string, string>;
  /** Files to place in the job's directory before launch: relative path → content (job.json, configs…). */
  files: Record<string, string>;
  /** GPUs the job needs (Kubernetes: the `nvidia.com/gpu` limit; SSH: `CUDA_VISIBLE_DEVICES` from its slots). */
  gpus: number;
  /** Wall-clock seconds the job may run, from the run's remaining budget (Kubernetes: `activeDeadlineSeconds`). */
  deadlineSeconds: number;
}

/** Where a launched job can be found again, also after a restart of the control plane. */
export interface JobHandle {
  executor: "local" | "ssh" | "kubernetes" | "slurm";
  /** pid, Kubernetes Job name, … */
  externalId: string;
  /** The job's directory on the machine that runs it; the contract's output dir is `${workDir}/output`. */
  workDir: string;
}

/** A file of a job's directory: its path relative to the directory, and its size in bytes. */
export interface RemoteFile {
  path: string;
  size: number;
}

/** Failure classes an executor can tell apart; the contract's classes plus what only the executor sees. */
export type ExecutorFailureClass = FailureClass | "gpu_oom" | "node_lost" | "deadline_exceeded";

/**
 * An attempt's own times on the machine that runs it, for a trainer whose heartbeat does not say when
 * it started: when its process started, when it ended (`null` while it runs, or when it vanished
 * without an end record), and that machine's "now" at the look. ISO 8601.
 */
export interface JobTimes {
  startedAt: string;
  endedAt: string | null;
  now: string;
}

export type JobObservation =
  | { state: "running" }
  | { state: "succeeded" }
  | { state: "cancelled" }
  | { state: "failed"; exitCode: number | null; failureClass: ExecutorFailureClass; retriable: boolean; message: string };

/**
 * One short command run where a run's jobs would run, before the run exists: in a fresh directory
 * holding `files`, with `stdin` on its standard input. A run's trainer arguments are checked so, by
 * the run's own interpreter on its node, in its image.
 */
export interface ProbeSpec {
  /** Names the probe's directory (and, on Kubernetes, its Job): lowercase letters, digits and dashes. */
  id: string;
  command: string[];
  stdin: string;
  files: Record<string, string>;
  /** How long it may take from start to answer (on Kubernetes a pod's scheduling and image pull included). */
  timeoutSeconds: number;
}

/** What a probe's command answered. Exit 127 and 126 are the shell's: the command was not found, or not runnable. */
export interface ProbeResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Where it ran, in words for messages: "this machine", an SSH node, a Kubernetes pool. */
  where: string;
}

/**
 * Decides where a job runs and moves its files; orthogonal to the trainer adapter, so any
 * adapter runs on any executor (local, ssh, kubernetes).
 */
export interface Executor {
  /** The directory a job will run in, so the adapter can render job.json's output dir before launch. */
  workDirFor(jobId: string): string;
  launch(spec: LaunchSpec): Promise<JobHandle>;
  observe(handle: JobHandle): Promise<JobObservation>;
  /**
   * Files under `relativeDir` of the job's directory (recursively), with their sizes, so a remote
   * job's outputs can be mirrored by pulling only the bytes past what was pulled before.
   */
  list(handle: JobHandle, relativeDir: string): Promise<RemoteFile[]>;
  /** Bytes of a file under the job's directory from `byteOffset` on, for incremental ingest. */
  readFrom(handle: JobHandle, relativePath: string, byteOffset: number, maxBytes: number): Promise<Buffer>;
  /** The last bytes of the job's combined stdout/stderr log. */
  logTail(handle: JobHandle, maxBytes: number): Promise<string>;
  cancel(handle: JobHandle): Promise<void>;
  /** The attempt's own start and end; `null` when they cannot be known (no record of its start). */
  times(handle: JobHandle): Promise<JobTimes | null>;
  /** Runs a probe where this executor's jobs run and returns its answer; throws when it cannot get one in time. */
  probe(spec: ProbeSpec): Promise<ProbeResult>;
}
