import type { Job } from "@evotrainer/contract";
import { recipeSchema } from "@evotrainer/core";
import type { TrainerAdapter } from "../adapter.ts";
import { trlArgs } from "./trl-args.ts";

const CONFIG_FILE = "trl-grpo.yaml";

/**
 * TRL's GRPO trainer through its CLI, `trl grpo --config <file>`: the arguments go in a config file
 * (JSON, which YAML reads as it is) rather than on the command line, so values need no quoting.
 */
export function trlAdapter(): TrainerAdapter {
  return {
    name: "trl",
    render: (job: Job) => {
      const args = trlArgs(recipeSchema.parse(job.recipe), job);
      return {
        command: ["trl", "grpo", "--config", CONFIG_FILE],
        env: { PYTHONUNBUFFERED: "1" },
        files: { "job.json": `${JSON.stringify(job, null, 2)}\n`, [CONFIG_FILE]: `${JSON.stringify(args, null, 2)}\n` },
      };
    },
  };
}
