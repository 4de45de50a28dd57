import { readFileSync } from "node:fs";
import { posix } from "node:path";
import type { Job } from "@evotrainer/contract";
import { recipeSchema } from "@evotrainer/core";
import type { TrainerAdapter } from "../adapter.ts";
import { EVO_JOB_PY } from "../python-files.ts";
import { rayJobSubmit } from "./ray-job-submit.ts";
import { REWARD_WRAPPER_FILE, rewardWrapperConfig, rewardWrapperModule } from "./reward-wrapper.ts";
import { verlNodes } from "./verl-nodes.ts";
import type { VerlJobSettings } from "./verl-job-settings.ts";
import { verlMetricsPath, verlOverrides } from "./verl-overrides.ts";
import { verlPaths } from "./verl-paths.ts";

const WRAPPER_FILE = "evo_verl_job.py";
const WRAPPER = readFileSync(new URL(`./${WRAPPER_FILE}`, import.meta.url), "utf8");

/**
 * verl's PPO/GRPO trainer: `python3 -m verl.trainer.main_ppo` with Hydra overrides from the recipe
 * and the job, submitted with `ray job submit` when the job spans several nodes. The reward is
 * EvoTrainer's generated wrapper (the recipe's weighted components, also written to a side file).
 * The file logger writes the contract's `metrics.jsonl` directly (same `{"step":N,"data":{…}}`
 * shape). EvoTrainer's job wrapper (evo_verl_job.py) runs it and maps its rollout and validation
 * dumps, checkpoint and exit to the contract while it runs.
 */
export function verlAdapter(): TrainerAdapter {
  return {
    name: "verl",
    render: (job: Job) => {
      const recipe = recipeSchema.parse(job.recipe);
      const settings = job.adapter as VerlJobSettings;
      const delegate = settings.rewardFunction ? { path: settings.rewardFunction.path, name: settings.rewardFunction.name ?? "compute_score" } : null;
      const wrapper = rewardWrapperModule(rewardWrapperConfig(recipe, job, delegate, verlPaths(job.outputDir).rewardComponentsFile));
      const python = settings.python ?? "python3";
      const trainer = [python, "-m", "verl.trainer.main_ppo", ...verlOverrides(recipe, job)];
      const env = { VERL_FILE_LOGGER_PATH: verlMetricsPath(job), PYTHONUNBUFFERED: "1" };
      let command = trainer;
      if (verlNodes(job).nnodes > 1) {
        if (!settings.rayAddress) throw new RangeError("a verl job on more than one node is submitted to a Ray cluster: set job.adapter.rayAddress");
        command = rayJobSubmit({ address: settings.rayAddress, workingDir: posix.dirname(job.outputDir), outputDir: job.outputDir, env, entrypoint: trainer });
      }
      return {
        command: [python, WRAPPER_FILE, "job.json", "--", ...command],
        env,
        files: { "job.json": `${JSON.stringify(job, null, 2)}\n`, [REWARD_WRAPPER_FILE]: wrapper, [WRAPPER_FILE]: WRAPPER, ...EVO_JOB_PY },
      };
    },
  };
}
