import { posix } from "node:path";

export interface RayJobSubmitOptions {
  /** The Ray cluster's job submission address (its dashboard), e.g. `http://head:8265`. */
  address: string;
  /** The job's directory, uploaded as the working dir every node runs in. */
  workingDir: string;
  /** The job's output dir, left out of the upload (checkpoints of a resumed job would go along). */
  outputDir: string;
  env: Record<string, string>;
  entrypoint: readonly string[];
}

/**
 * `ray job submit` for a verl job that spans several nodes. The environment travels in the
 * runtime env, since the cluster's workers do not inherit the submitting shell's. The trainer
 * writes to the job's absolute output dir, so that dir must be on a filesystem the nodes share.
 * Without `--no-wait` the command follows the job's logs and exits 0 when the job succeeded and 1
 * when it failed, which is what an executor watches.
 */
export function rayJobSubmit(options: RayJobSubmitOptions): string[] {
  const excluded = posix.relative(options.workingDir, options.outputDir);
  const runtimeEnv = { env_vars: options.env, ...(excluded && !excluded.startsWith("..") ? { excludes: [`${excluded}/`] } : {}) };
  return ["ray", "job", "submit", "--address", options.address, "--working-dir", options.workingDir, "--runtime-env-json", JSON.stringify(runtimeEnv), "--", ...options.entrypoint];
}
