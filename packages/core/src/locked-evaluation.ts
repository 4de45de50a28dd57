import { z } from "zod";
import { deepEqual } from "./json-patch.ts";
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

function lockedPaths(locked: LockedEvaluation): string[] {
  return [...EVALUATION_PATHS, ...locked.lockedPaths];
}

/** The locked location a patch path writes at or inside, if any. */
export function touchedEvaluationPath(path: string, locked: LockedEvaluation): string | undefined {
  const tokens = parsePointer(path);
  return lockedPaths(locked).find((lockedPath) => {
    const lockedTokens = parsePointer(lockedPath);
    return lockedTokens.length <= tokens.length && lockedTokens.every((t, i) => sameOrInside(tokens[i]!, t));
  });
}

/**
 * The locked location whose settings differ between two documents, if any: catches a patch that
 * rewrites a whole section containing evaluation settings without naming them.
 */
export function changedEvaluationPath(before: unknown, after: unknown, locked: LockedEvaluation): string | undefined {
  return lockedPaths(locked).find((lockedPath) => {
    const tokens = parsePointer(lockedPath);
    return !deepEqual(settingsAt(before, tokens), settingsAt(after, tokens));
  });
}

// Passthrough keys are dotted Hydra paths held in one token, so "actor_rollout_ref.rollout.val_kwargs"
// also covers the key "actor_rollout_ref.rollout.val_kwargs.temperature".
function sameOrInside(token: string, lockedToken: string): boolean {
  return token === lockedToken || token.startsWith(`${lockedToken}.`);
}

function settingsAt(doc: unknown, tokens: readonly string[]): Record<string, unknown> {
  const found: Record<string, unknown> = {};
  const walk = (node: unknown, rest: readonly string[], at: string): void => {
    if (rest.length === 0) {
      found[at] = node;
      return;
    }
    if (typeof node !== "object" || node === null || Array.isArray(node)) return;
    const [head, ...tail] = rest;
    for (const [key, value] of Object.entries(node)) {
      if (key === head) walk(value, tail, `${at}/${key}`);
      else if (tail.length === 0 && sameOrInside(key, head!)) found[`${at}/${key}`] = value;
    }
  };
  walk(doc, tokens, "");
  return found;
}
