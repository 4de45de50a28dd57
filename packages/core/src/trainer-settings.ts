import { z } from "zod";
import { componentNameSchema, jsonValueSchema } from "./recipe.ts";
import { trainerEnvSchema } from "./trainer-env.ts";

export const adapterNameSchema = z.enum(["gym", "verl", "trl"]);
export type AdapterName = z.infer<typeof adapterNameSchema>;

/** A Python function on the node: a file and the function's name in it. */
const pythonFunctionSchema = z.strictObject({
  path: z.string().min(1),
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: "a Python function name" }).optional(),
});

// The interpreter that runs the job wrapper on the node (a virtual environment's python, say).
const pythonSchema = z.string().min(1).default("python3");

/**
 * TRL settings (`trainer:` of a run with `adapter: trl`): where the training prompts are, which
 * Python function computes each reward component the wrapper has no built-in for, and further
 * GRPOConfig arguments verbatim.
 */
export const trlSettingsSchema = z.strictObject({
  python: pythonSchema,
  // A JSONL, JSON or parquet file of tasks with `prompt` and `answer` columns (or a Hub dataset id).
  // Optional only so that a run can hold imported TRL runs; a train job without it fails as a config error.
  dataset: z.string().min(1).optional(),
  // One function per reward component (`fn(prompts, completions, answer, **columns) -> list[float]`).
  rewardFunctions: z.record(componentNameSchema, pythonFunctionSchema).default({}),
  // GRPOConfig arguments, applied last (batch sizes, gradient accumulation, precision).
  args: z.record(z.string(), jsonValueSchema).default({}),
  // Variables the job gets (HF_HOME, HF_HUB_OFFLINE, HF_TOKEN from the worker, LD_LIBRARY_PATH).
  env: trainerEnvSchema,
});
export type TrlSettings = z.infer<typeof trlSettingsSchema>;

/** verl settings (`trainer:` of a run with `adapter: verl`). */
export const verlSettingsSchema = z.strictObject({
  python: pythonSchema,
  // `data.train_files`: parquet file(s) in verl's dataset format.
  // Optional only so that a run can hold imported verl runs; verl refuses to train without it.
  trainFiles: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
  // The user's verl reward function (`compute_score(data_source, solution_str, ground_truth, extra_info)`).
  rewardFunction: pythonFunctionSchema.optional(),
  // Nodes the job spans; above 1 it is submitted to the Ray cluster at `rayAddress`.
  nnodes: z.number().int().positive().default(1),
  rayAddress: z.string().min(1).optional(),
  // `actor_rollout_ref.rollout.name`: verl generates with vllm, sglang or trtllm only (GPU).
  rolloutEngine: z.enum(["vllm", "sglang", "trtllm"]).default("vllm"),
  // Further Hydra overrides, verbatim, applied last (batch sizes, offload, parallelism).
  overrides: z.record(z.string(), jsonValueSchema).default({}),
  // Variables the job gets, as for TRL.
  env: trainerEnvSchema,
});
export type VerlSettings = z.infer<typeof verlSettingsSchema>;

/** The gym checks its own knobs (batch shape, pacing) when a job starts; here they pass as they are. */
export const gymSettingsSchema = z.record(z.string(), jsonValueSchema);

export const TRAINER_SETTINGS_SCHEMAS = { gym: gymSettingsSchema, trl: trlSettingsSchema, verl: verlSettingsSchema } as const;

/** Validates a run's `trainer:` settings against its adapter's schema, with the defaults filled in. */
export function parseTrainerSettings(adapter: AdapterName, settings: unknown): Record<string, unknown> {
  return TRAINER_SETTINGS_SCHEMAS[adapter].parse(settings) as Record<string, unknown>;
}
