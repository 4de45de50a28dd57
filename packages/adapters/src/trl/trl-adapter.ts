import { readFileSync } from "node:fs";
import type { Job } from "@evotrainer/contract";
import { recipeSchema, trlSettingsSchema } from "@evotrainer/core";
import type { TrainerAdapter } from "../adapter.ts";
import { EVO_JOB_PY } from "../python-files.ts";
import { UnsupportedFactorError } from "../unsupported-factor.ts";
import { BUILTIN_REWARD_COMPONENTS, REWARD_WRAPPER_FILE, rewardWrapperModule } from "../verl/reward-wrapper.ts";
import { trlArgs } from "./trl-args.ts";

const CONFIG_FILE = "trl-grpo.yaml";
const WRAPPER_FILE = "evo_trl_job.py";
const WRAPPER = readFileSync(new URL(`./${WRAPPER_FILE}`, import.meta.url), "utf8");

/**
 * TRL's GRPOTrainer through EvoTrainer's job wrapper (evo_trl_job.py), which turns it into an
 * evo.job/v1 job. GRPOConfig's arguments go in a config file (JSON, which YAML reads as it is);
 * the reward components the run names no function for are computed by the same built-ins as
 * verl's reward wrapper (shipped as evo_reward.py), so both trainers score a response alike.
 */
export function trlAdapter(): TrainerAdapter {
  return {
    name: "trl",
    render: (job: Job) => {
      const recipe = recipeSchema.parse(job.recipe);
      const settings = trlSettingsSchema.parse(job.adapter);
      const args = trlArgs(recipe, job);
      const weights = Object.fromEntries(Object.entries(recipe.reward.components).map(([name, c]) => [name, c.weight]));
      const builtins = BUILTIN_REWARD_COMPONENTS[job.domain];
      for (const name of Object.keys(weights)) {
        if (!builtins.includes(name) && !(name in settings.rewardFunctions)) {
          throw new UnsupportedFactorError("trl", `reward.components.${name}`, `no built-in ${name} component for the ${job.domain} domain; name a function for it in trainer.rewardFunctions`);
        }
      }
      return {
        command: [settings.python, WRAPPER_FILE, "job.json", CONFIG_FILE],
        env: { PYTHONUNBUFFERED: "1" },
        files: {
          "job.json": `${JSON.stringify(job, null, 2)}\n`,
          [CONFIG_FILE]: `${JSON.stringify(args, null, 2)}\n`,
          [WRAPPER_FILE]: WRAPPER,
          ...EVO_JOB_PY,
          [REWARD_WRAPPER_FILE]: rewardWrapperModule({ domain: job.domain, weights, delegate: null, sideFile: "" }),
        },
      };
    },
  };
}
