import type { LaunchSpec } from "../executor.ts";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The environment a job starts with on top of the login's: the spec's, its directory, and, unless
 * the caller chose GPU slots itself, the first `gpus` devices (none for a CPU job, so that it
 * cannot take a GPU by accident).
 */
export function jobEnv(spec: LaunchSpec, workDir: string): Record<string, string> {
  for (const name of Object.keys(spec.env)) {
    // Names go into a shell command unquoted: anything else would be an injection.
    if (!NAME.test(name)) throw new Error(`job ${spec.jobId}: environment variable name "${name}" is not a valid shell name`);
  }
  const devices = Array.from({ length: spec.gpus }, (_, index) => String(index)).join(",");
  return { CUDA_VISIBLE_DEVICES: devices, ...spec.env, EVO_JOB_DIR: workDir };
}
