import { join } from "node:path";
import { firstFile, matchingNames } from "../run-dir-entries.ts";
import type { VerlRunFiles } from "./verl-run-dir.ts";

const DUMP = /^\d+\.jsonl$/;

async function firstDumpDir(dirs: readonly string[]): Promise<string | undefined> {
  for (const dir of dirs) if ((await matchingNames(dir, DUMP)).length > 0) return dir;
  return undefined;
}

/**
 * Finds a verl run's outputs in `dir`: the layout EvoTrainer's verl jobs write (`verl/rollouts`,
 * `verl/validation`, `metrics.jsonl`, `verl/reward_components.jsonl`), the same without `verl/`,
 * or `dir` being the rollout_data_dir itself. Throws, naming what was expected, when `dir` holds
 * no dumps at all.
 */
export async function verlRunLayout(dir: string): Promise<VerlRunFiles> {
  const rolloutDataDir = await firstDumpDir([join(dir, "rollouts"), join(dir, "verl", "rollouts"), dir]);
  const validationDataDir = await firstDumpDir([join(dir, "validation"), join(dir, "verl", "validation")]);
  if (!rolloutDataDir && !validationDataDir) {
    throw new Error(
      `${dir} is not a verl run directory: expected verl's {step}.jsonl dumps (trainer.rollout_data_dir) in ` +
        `${join(dir, "rollouts")}/, ${join(dir, "verl", "rollouts")}/ or ${dir}/ itself, or validation dumps ` +
        `(trainer.validation_data_dir) in ${join(dir, "validation")}/ or ${join(dir, "verl", "validation")}/; ` +
        `optionally metrics.jsonl (VERL_FILE_LOGGER_PATH) and reward_components.jsonl (EvoTrainer's reward wrapper)`,
    );
  }
  const metricsFile = await firstFile([join(dir, "metrics.jsonl")]);
  const rewardComponentsFile = await firstFile([join(dir, "reward_components.jsonl"), join(dir, "verl", "reward_components.jsonl")]);
  return {
    ...(rolloutDataDir ? { rolloutDataDir } : {}),
    ...(validationDataDir ? { validationDataDir } : {}),
    ...(metricsFile ? { metricsFile } : {}),
    ...(rewardComponentsFile ? { rewardComponentsFile } : {}),
  };
}
