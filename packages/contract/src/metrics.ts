import { z } from "zod";
import { ContractFileError, describeZodIssues } from "./contract-error.ts";
import { appendJsonLines } from "./jsonl-append.ts";
import { paths } from "./paths.ts";

/**
 * One line of `metrics.jsonl`, in verl's file-logger shape. `null` stands for a value JSON cannot
 * hold (NaN, ±Infinity): verl's orjson writes those as null, and so does `appendMetrics`.
 */
export const metricsLineSchema = z.object({
  step: z.number().int().nonnegative(),
  data: z.record(z.string(), z.number().nullable()),
  // The job attempt that wrote the line, as on rollout lines: a later attempt's step replaces an earlier one's.
  attempt: z.number().int().positive().optional(),
});
export type MetricsLine = z.infer<typeof metricsLineSchema>;

/** Appends one step's metrics to `metrics.jsonl` under `outputDir`. */
export async function appendMetrics(
  outputDir: string,
  step: number,
  data: Readonly<Record<string, number | null>>,
  attempt?: number,
): Promise<MetricsLine> {
  const file = paths(outputDir).metrics;
  const finite = Object.fromEntries(
    Object.entries(data).map(([key, value]) => [key, value !== null && Number.isFinite(value) ? value : null]),
  );
  const parsed = metricsLineSchema.safeParse({ step, data: finite, ...(attempt === undefined ? {} : { attempt }) });
  if (!parsed.success) {
    const issues = describeZodIssues(parsed.error.issues);
    throw new ContractFileError(file, "refusing to append an invalid metrics line:", issues);
  }
  await appendJsonLines(file, [parsed.data]);
  return parsed.data;
}
