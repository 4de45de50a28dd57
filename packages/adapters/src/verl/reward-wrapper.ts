import { readFileSync } from "node:fs";
import type { Domain, Job } from "@evotrainer/contract";
import type { Recipe } from "@evotrainer/core";
import { UnsupportedFactorError } from "../unsupported-factor.ts";

/** The file of the job's directory the wrapper is shipped as, and the function verl calls in it. */
export const REWARD_WRAPPER_FILE = "evo_reward.py";
export const REWARD_WRAPPER_FUNCTION = "compute_score";

/**
 * Components the wrapper computes in plain Python, per domain (ports of core's final-answer
 * reading, and the code gym's fenced-block check). Anything else needs the job's reward module.
 */
export const BUILTIN_REWARD_COMPONENTS: Readonly<Record<Domain, readonly string[]>> = {
  math: ["correctness", "format"],
  code: ["format"],
  swe: [],
  custom: [],
};

export interface RewardWrapperConfig {
  domain: Domain;
  /** The recipe's components and their weights: the score is their weighted sum. */
  weights: Record<string, number>;
  /** The user's verl reward function, asked first; its numeric results named like a component are that component. */
  delegate: { path: string; name: string } | null;
  /** Where each call appends its components (JSONL), for the importer to join back to the dumps. */
  sideFile: string;
}

const TEMPLATE = readFileSync(new URL("./reward_wrapper.py", import.meta.url), "utf8");
const CONFIG_LINE = 'CONFIG = json.loads("{}")  # evo:config';

/**
 * The wrapper's settings for a job. A component neither built in for the job's domain nor
 * delegated to a reward module throws `UnsupportedFactorError` now, rather than failing the
 * first training step on a GPU node.
 */
export function rewardWrapperConfig(recipe: Recipe, job: Job, delegate: RewardWrapperConfig["delegate"], sideFile: string): RewardWrapperConfig {
  const weights = Object.fromEntries(Object.entries(recipe.reward.components).map(([name, c]) => [name, c.weight]));
  if (!delegate) {
    const builtins = BUILTIN_REWARD_COMPONENTS[job.domain];
    for (const name of Object.keys(weights)) {
      if (!builtins.includes(name)) {
        throw new UnsupportedFactorError(
          "verl",
          `reward.components.${name}`,
          `no built-in ${name} component for the ${job.domain} domain (built in: ${builtins.join(", ") || "none"}); name a reward module that returns it in job.adapter.rewardFunction`,
        );
      }
    }
  }
  return { domain: job.domain, weights, delegate, sideFile };
}

/** The Python module verl loads as its custom reward function (`compute_score`), for one job. */
export function rewardWrapperModule(config: RewardWrapperConfig): string {
  if (!TEMPLATE.includes(CONFIG_LINE)) throw new Error("reward_wrapper.py lost its config line");
  // A JSON text is a valid Python string literal once JSON-quoted again (same escapes, \uXXXX included).
  return TEMPLATE.replace(CONFIG_LINE, `CONFIG = json.loads(${JSON.stringify(JSON.stringify(config))})`);
}
