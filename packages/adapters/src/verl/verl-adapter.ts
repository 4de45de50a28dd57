import type { Job } from "@evotrainer/contract";
import { recipeSchema } from "@evotrainer/core";
import type { TrainerAdapter } from "../adapter.ts";
import { verlMetricsPath, verlOverrides } from "./verl-overrides.ts";

/**
 * verl's PPO/GRPO trainer on one node: `python3 -m verl.trainer.main_ppo` with Hydra overrides from
 * the recipe and the job. The file logger writes the contract's `metrics.jsonl` directly (same
 * `{"step":N,"data":{…}}` shape); rollout dumps are mapped by `verlDumpToRollouts`.
 */
export function verlAdapter(): TrainerAdapter {
  return {
    name: "verl",
    render: (job: Job) => {
      const recipe = recipeSchema.parse(job.recipe);
      return {
        command: ["python3", "-m", "verl.trainer.main_ppo", ...verlOverrides(recipe, job)],
        env: { VERL_FILE_LOGGER_PATH: verlMetricsPath(job), PYTHONUNBUFFERED: "1" },
        files: { "job.json": `${JSON.stringify(job, null, 2)}\n` },
      };
    },
  };
}
