import type { z } from "zod";
import { ContractFileError, describeZodIssues } from "./contract-error.ts";
import { appendJsonLines } from "./jsonl-append.ts";
import { paths, type RolloutDir } from "./paths.ts";
import { rolloutSchema, type Rollout } from "./rollout.ts";

/**
 * Appends rollouts to `rollouts/{train,eval}/step_{step}.jsonl`. Rows are validated and must belong
 * to the file (its step; train rows in train/, promotion and sealed rows in eval/), so a trainer bug
 * surfaces here and not as quarantined lines in the control plane.
 */
export async function appendRollouts(
  outputDir: string,
  dir: RolloutDir,
  step: number,
  rows: readonly z.input<typeof rolloutSchema>[],
): Promise<Rollout[]> {
  const file = paths(outputDir).rolloutsFile(dir, step);
  const parsed = rows.map((row, index) => {
    const result = rolloutSchema.safeParse(row);
    if (!result.success) {
      const issues = describeZodIssues(result.error.issues).map((issue) => ({
        ...issue,
        path: `[${index}]${issue.path ? `.${issue.path}` : ""}`,
      }));
      throw new ContractFileError(file, "refusing to append an invalid rollout:", issues);
    }
    const rollout = result.data;
    const belongs = rollout.step === step && (dir === "train") === (rollout.split === "train");
    if (!belongs) {
      throw new ContractFileError(
        file,
        `rollout [${index}] (split ${rollout.split}, step ${rollout.step}) does not belong in ${dir}/ step ${step}`,
      );
    }
    return rollout;
  });
  await appendJsonLines(file, parsed);
  return parsed;
}
