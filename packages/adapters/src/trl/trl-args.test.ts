import { describe, expect, it } from "vitest";
import { jobSchema, type Job } from "@evotrainer/contract";
import { defaultRecipe, recipeSchema, type Recipe } from "@evotrainer/core";
import { UnsupportedFactorError } from "../unsupported-factor.ts";
import { trlAdapter } from "./trl-adapter.ts";
import { trlArgs } from "./trl-args.ts";

function job(recipe: Recipe, changes: Partial<Job> = {}): Job {
  const evalSettings = { samplesPerTask: 4, temperature: 0.6, maxResponseTokens: 4096, grader: "math_verify" };
  return jobSchema.parse({
    contract: "evo.job/v1", runId: "run-1", branchId: "branch-2", jobId: "job-3", kind: "train", domain: "math",
    policy: { base: "Qwen/Qwen2.5-0.5B-Instruct" }, recipe,
    evaluation: { promotion: { dataset: "gsm8k/promotion", ...evalSettings }, sealed: { dataset: "gsm8k/sealed", ...evalSettings }, seed: 7 },
    budget: { maxSeconds: 3600, maxSteps: 40, gpuCount: 1 }, seed: 42, outputDir: "/runs/run-1/job-3",
    adapter: { dataset: "openai/gsm8k", rewardFuncs: ["accuracy_reward", "think_format_reward"] },
    ...changes,
  });
}

const variant = (algo: Partial<Recipe["algo"]>, data: Partial<Recipe["data"]> = {}, passthrough: Recipe["passthrough"] = {}): Recipe =>
  recipeSchema.parse({ ...defaultRecipe(), algo: { ...defaultRecipe().algo, ...algo }, data: { ...defaultRecipe().data, ...data }, passthrough });

describe("trlArgs", () => {
  it("maps the default GRPO recipe to GRPOConfig's arguments, logging completions every step", () => {
    expect(trlArgs(defaultRecipe(), job(defaultRecipe()))).toEqual({
      model_name_or_path: "Qwen/Qwen2.5-0.5B-Instruct",
      output_dir: "/runs/run-1/job-3/trl",
      learning_rate: 1e-6,
      beta: 0.001,
      epsilon: 0.2,
      epsilon_high: 0.28,
      num_generations: 8,
      temperature: 1,
      max_completion_length: 4096,
      loss_type: "dapo",
      scale_rewards: "group",
      mask_truncated_completions: false,
      log_completions: true,
      logging_steps: 1,
      seed: 42,
      report_to: "none",
      max_steps: 40,
      dataset_name: "openai/gsm8k",
      reward_funcs: ["accuracy_reward", "think_format_reward"],
      reward_weights: [1, 0],
    });
  });

  it("renders Dr. GRPO without KL, masking truncated completions, from a parent checkpoint", () => {
    const recipe = variant({ estimator: "dr_grpo", kl: { mode: "none", coef: 0 }, lossAggregation: "seq-mean-token-sum-norm", groupSize: 16 }, { overlongFilter: true });
    const args = trlArgs(recipe, job(recipe, { policy: { base: "m", checkpoint: "/runs/run-1/job-2/trl/checkpoint-20" } }));
    expect(args).toMatchObject({ model_name_or_path: "/runs/run-1/job-2/trl/checkpoint-20", beta: 0, scale_rewards: "none", loss_type: "dr_grpo", mask_truncated_completions: true, num_generations: 16 });
  });

  it("applies passthrough arguments verbatim, after the recipe's", () => {
    const recipe = variant({ lossAggregation: "seq-mean-token-mean" }, {}, { trl: { per_device_train_batch_size: 4, loss_type: "bnpo" } });
    expect(trlArgs(recipe, job(recipe))).toMatchObject({ per_device_train_batch_size: 4, loss_type: "bnpo" });
  });

  it("refuses factors GRPOTrainer cannot run instead of dropping them", () => {
    for (const recipe of [
      variant({ estimator: "rloo" }),
      variant({ kl: { mode: "reward", coef: 0.01 } }),
      variant({ entropyCoef: 0.01 }),
      variant({ lossAggregation: "seq-mean-token-sum" }),
      variant({}, { dynamicSampling: { enabled: true, maxResampleRounds: 3 } }),
    ]) {
      expect(() => trlArgs(recipe, job(recipe))).toThrow(UnsupportedFactorError);
    }
  });
});

describe("trlAdapter", () => {
  it("runs `trl grpo` with the arguments in a config file", () => {
    const rendered = trlAdapter().render(job(defaultRecipe()));
    expect(rendered.command).toEqual(["trl", "grpo", "--config", "trl-grpo.yaml"]);
    expect(JSON.parse(rendered.files["trl-grpo.yaml"]!)).toEqual(trlArgs(defaultRecipe(), job(defaultRecipe())));
  });
});
