import { posix } from "node:path";
import type { Job } from "@evotrainer/contract";
import { recipeSchema } from "@evotrainer/core";
import type { TrainerAdapter } from "../adapter.ts";
import { rayJobSubmit } from "./ray-job-submit.ts";
import { REWARD_WRAPPER_FILE, rewardWrapperConfig, rewardWrapperModule } from "./reward-wrapper.ts";
import { verlNodes } from "./verl-nodes.ts";
import type { VerlJobSettings } from "./verl-job-settings.ts";
import { verlMetricsPath, verlOverrides } from "./verl-overrides.ts";
import { verlPaths } from "./verl-paths.ts";

/**
 * verl's PPO/GRPO trainer: `python3 -m verl.trainer.main_ppo` with Hydra overrides from the recipe
 * and the job, submitted with `ray job submit` when the job spans several nodes. The reward is
 * EvoTrainer's generated wrapper (the recipe's weighted components, also written to a side file).
 * The file logger writes the contract's `metrics.jsonl` directly (same `{"step":N,"data":{…}}`
 * shape); rollout dumps are mapped by `verlDumpToRollouts`.
 */
export function verlAdapter(): TrainerAdapter {
  return {
    name: "verl",
    render: (job: Job) => {
      const recipe = recipeSchema.parse(job.recipe);
      const settings = job.adapter as VerlJobSettings;
      const delegate = settings.rewardFunction ? { path: settings.rewardFunction.path, name: settings.rewardFunction.name ?? "compute_score" } : null;
      const wrapper = rewardWrapperModule(rewardWrapperConfig(recipe, job, delegate, verlPaths(job.outputDir).rewardComponentsFile));
      const trainer = ["python3", "-m", "verl.trainer.main_ppo", ...verlOverrides(recipe, job)];
      const env = { VERL_FILE_LOGGER_PATH: verlMetricsPath(job), PYTHONUNBUFFERED: "1" };
      let command = trainer;
      if (verlNodes(job).nnodes > 1) {
        if (!settings.rayAddress) throw new RangeError("a verl job on more than one node is submitted to a Ray cluster: set job.adapter.rayAddress");
        command = rayJobSubmit({ address: settings.rayAddress, workingDir: posix.dirname(job.outputDir), outputDir: job.outputDir, env, entrypoint: trainer });
      }
      return {
        command,
        env,
        files: { "job.json": `${JSON.stringify(job, null, 2)}\n`, [REWARD_WRAPPER_FILE]: wrapper },
      };
    },
  };
}
