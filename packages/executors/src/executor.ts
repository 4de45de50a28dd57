import type { FailureClass, Job } from "@evotrainer/contract";

/** What an adapter asks an executor to run: a command in a working directory holding these files. */
export interface LaunchSpec {
  job: Job;
  command: string[];
  env: Record<string, string>;
  /** Files to place in the job's directory before launch, relative path → content. */
  files: Record<string, string>;
}

/** Where a launched job can be found again after a restart of the control plane. */
export interface JobHandle {
  executor: "local" | "ssh" | "kubernetes";
  /** pid, Kubernetes Job name, … */
  externalId: string;
  /** The contract's output directory as a URI the executor can read: file://, sftp://, pvc://, s3:// */
  outputUri: string;
}

export type JobObservation =
  | { state: "running" }
  | { state: "succeeded"; exitCode: 0 }
  | {
      state: "failed";
      exitCode: number | null;
      failureClass: FailureClass | "gpu_oom" | "node_lost" | "deadline_exceeded";
      retriable: boolean;
      logTail: string;
    };

/**
 * Decides where a job runs and moves its files; orthogonal to the trainer adapter, so any
 * adapter runs on any executor (local, ssh, kubernetes).
 */
export interface Executor {
  launch(spec: LaunchSpec): Promise<JobHandle>;
  observe(handle: JobHandle): Promise<JobObservation>;
  /** Bytes of an output file from `byteOffset` on, for incremental ingest while the job runs. */
  readFrom(handle: JobHandle, relativePath: string, byteOffset: number): Promise<Uint8Array>;
  cancel(handle: JobHandle): Promise<void>;
}
