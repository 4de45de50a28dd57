import { z } from "zod";
import { readJsonFile, writeJsonFile } from "./json-file.ts";
import { paths } from "./paths.ts";

export const taskEvalSchema = z.object({
  taskId: z.string().min(1),
  samples: z.number().int().positive(),
  meanReward: z.number(),
  passRate: z.number().min(0).max(1),
});
export type TaskEval = z.infer<typeof taskEvalSchema>;

export const splitEvalSchema = z.object({
  // The locked grader's aggregate for the split; gates compare branches on per-task results.
  score: z.number(),
  tasks: z.array(taskEvalSchema),
});
export type SplitEval = z.infer<typeof splitEvalSchema>;

/**
 * `eval/step_{N}.json`: grader results per locked split. Label-free by design: failure labels are
 * the control plane's detectors' output over the eval rollouts, never the trainer's opinion.
 */
export const evalResultSchema = z
  .object({
    step: z.number().int().nonnegative(),
    splits: z.object({ promotion: splitEvalSchema.optional(), sealed: splitEvalSchema.optional() }),
  })
  .refine((result) => result.splits.promotion !== undefined || result.splits.sealed !== undefined, {
    error: "an eval result needs at least one split (promotion or sealed)",
    path: ["splits"],
  });
export type EvalResult = z.infer<typeof evalResultSchema>;

const what = "evo.job/v1 eval result";

/** Writes `eval/step_{result.step}.json` atomically. */
export function writeEval(outputDir: string, result: EvalResult): Promise<EvalResult> {
  return writeJsonFile(paths(outputDir).evalFile(result.step), evalResultSchema, result, what);
}

/** `null` until the trainer has evaluated that step. */
export function readEval(outputDir: string, step: number): Promise<EvalResult | null> {
  return readJsonFile(paths(outputDir).evalFile(step), evalResultSchema, what);
}
