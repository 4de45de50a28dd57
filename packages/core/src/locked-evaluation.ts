import { z } from "zod";
import { parsePointer } from "./json-pointer.ts";

const evalSplitSchema = z.strictObject({
  dataset: z.string().min(1),
  samplesPerTask: z.number().int().positive(),
  temperature: z.number().min(0).max(2),
  maxResponseTokens: z.number().int().positive(),
  grader: z.string().min(1),
});

/**
 * The run's evaluation protocol, frozen at run creation and owned by the evaluator. Interventions
 * may not touch it, nor any recipe location that would change how evaluation runs.
 */
export const lockedEvaluationSchema = z.strictObject({
  promotion: evalSplitSchema,
  sealed: evalSplitSchema,
  // Extra recipe locations (JSON pointers) this run treats as evaluation settings.
  lockedPaths: z.array(z.string().startsWith("/")).default([]),
});
export type LockedEvaluation = z.infer<typeof lockedEvaluationSchema>;

/**
 * Recipe locations that steer evaluation in every run: an `eval` section and the trainers' own
 * validation settings (verl's Hydra paths, TRL's argument names).
 */
export const EVALUATION_PATHS: readonly string[] = [
  "/eval",
  "/passthrough/verl/data.val_files",
  "/passthrough/verl/data.val_max_samples",
  "/passthrough/verl/data.val_batch_size",
  "/passthrough/verl/data.validation_shuffle",
  "/passthrough/verl/actor_rollout_ref.rollout.val_kwargs",
  "/passthrough/verl/trainer.val_before_train",
  "/passthrough/verl/trainer.val_only",
  "/passthrough/verl/trainer.test_freq",
  "/passthrough/verl/trainer.validation_data_dir",
  "/passthrough/trl/eval_dataset",
  "/passthrough/trl/eval_strategy",
  "/passthrough/trl/eval_steps",
  "/passthrough/trl/per_device_eval_batch_size",
];

/** The locked location a patch path touches, if any (same place, inside it, or containing it). */
export function touchedEvaluationPath(path: string, locked: LockedEvaluation): string | undefined {
  const tokens = parsePointer(path);
  return [...EVALUATION_PATHS, ...locked.lockedPaths].find((lockedPath) => overlaps(tokens, parsePointer(lockedPath)));
}

// Passthrough keys are dotted Hydra paths held in one token, so "actor_rollout_ref.rollout.val_kwargs"
// must also cover "actor_rollout_ref.rollout.val_kwargs.temperature".
function overlaps(a: readonly string[], b: readonly string[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x !== y && !x.startsWith(`${y}.`) && !y.startsWith(`${x}.`)) return false;
  }
  return true;
}
