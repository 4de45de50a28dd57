import { z } from "zod";

const envNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: "an environment variable name (letters, digits, _)" });

/**
 * `trainer.env`: variables the job's process gets, on every executor. A string is a literal value
 * (it is stored with the run, so never a secret); `{ fromWorker: NAME }` passes the worker's own
 * variable NAME at launch, so a secret (HF_TOKEN) stays out of the run's config, job.json and logs.
 */
export const trainerEnvSchema = z.record(envNameSchema, z.union([z.string(), z.strictObject({ fromWorker: envNameSchema })])).default({});
export type TrainerEnv = z.infer<typeof trainerEnvSchema>;

export type ResolvedTrainerEnv = { ok: true; env: Record<string, string> } | { ok: false; message: string };

/** The job's variables from `trainer.env` and the worker's environment; a variable the worker lacks is a configuration error naming it. */
export function resolveTrainerEnv(spec: TrainerEnv | undefined, workerEnv: Readonly<Record<string, string | undefined>>): ResolvedTrainerEnv {
  const env: Record<string, string> = {};
  const missing: string[] = [];
  for (const [name, value] of Object.entries(spec ?? {})) {
    if (typeof value === "string") env[name] = value;
    else if (workerEnv[value.fromWorker] !== undefined) env[name] = workerEnv[value.fromWorker]!;
    else missing.push(`trainer.env.${name} asks for the worker's ${value.fromWorker}, which the worker's environment does not set`);
  }
  return missing.length > 0 ? { ok: false, message: missing.join("; ") } : { ok: true, env };
}
