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
    adapter: { dataset: "openai/gsm8k" },
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
      entropy_coef: 0,
      reward_weights: [1, 0],
      log_completions: true,
      logging_steps: 1,
      seed: 42,
      report_to: "none",
      use_cpu: false,
      max_steps: 40,
      generation_batch_size: 8,
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
      variant({ lossAggregation: "seq-mean-token-sum" }),
      variant({}, { dynamicSampling: { enabled: true, maxResampleRounds: 3 } }),
    ]) {
      expect(() => trlArgs(recipe, job(recipe))).toThrow(UnsupportedFactorError);
    }
  });
});

describe("TRL's batch arguments", () => {
  it("sizes the generation batch so that the group size always divides it", () => {
    // The rule proposer's larger group: 16 with TRL's default per-device batch of 8 (TRL refused 8).
    const recipe = variant({ groupSize: 16 });
    expect(trlArgs(recipe, job(recipe))).toMatchObject({ num_generations: 16, generation_batch_size: 16 });
    for (const [groupSize, perDevice, asked, expected] of [
      [8, 8, undefined, 8],
      [6, 4, undefined, 12],
      [4, 2, 10, 12],
      [3, 8, 30, 48],
    ] as const) {
      const r = variant({ groupSize });
      const args = trlArgs(r, job(r, { adapter: { dataset: "d", args: { per_device_train_batch_size: perDevice, ...(asked ? { generation_batch_size: asked } : {}) } } }));
      const batch = args.generation_batch_size as number;
      expect(batch, `group ${groupSize}, batch ${perDevice}`).toBe(expected);
      expect(batch % groupSize).toBe(0);
      expect(batch % perDevice).toBe(0);
    }
  });

  it("feeds each optimizer step with one generation, as TRL does: steps_per_generation defaults to gradient_accumulation_steps", () => {
    // examples/trl-math.yaml: GA 4, group 8, micro-batch 8. The batch was 8 (one micro-batch), so TRL
    // generated four times per optimizer step and only the last generation's rollouts were kept.
    for (const [groupSize, perDevice, accumulation, expected] of [
      [8, 8, 4, 32],
      [4, 4, 4, 16],
      // A group larger than everything one optimizer step takes: a generation spans two steps.
      [16, 2, 4, 16],
      [6, 4, 2, 12],
    ] as const) {
      const r = variant({ groupSize });
      const args = trlArgs(r, job(r, { adapter: { dataset: "d", args: { per_device_train_batch_size: perDevice, gradient_accumulation_steps: accumulation } } }));
      expect(args.generation_batch_size, `group ${groupSize}, batch ${perDevice}, GA ${accumulation}`).toBe(expected);
    }
  });

  it("replaces steps_per_generation by the batch it asks for, since TRL refuses both together", () => {
    const recipe = variant({ groupSize: 16 });
    const args = trlArgs(recipe, job(recipe, { adapter: { dataset: "d", args: { per_device_train_batch_size: 4, steps_per_generation: 2 } } }));
    expect(args).toMatchObject({ generation_batch_size: 16 });
    expect(args).not.toHaveProperty("steps_per_generation");
  });

  it("passes the entropy bonus as entropy_coef and trains on the CPU where the job has no GPU", () => {
    const recipe = variant({ entropyCoef: 0.01 });
    expect(trlArgs(recipe, job(recipe, { budget: { maxSeconds: 60, maxSteps: 2, gpuCount: 0 } }))).toMatchObject({ entropy_coef: 0.01, use_cpu: true });
  });
});

describe("trlAdapter", () => {
  it("runs EvoTrainer's TRL job wrapper with the arguments in a config file", () => {
    const rendered = trlAdapter().render(job(defaultRecipe()));
    expect(rendered.command).toEqual(["python3", "evo_trl_job.py", "job.json", "trl-grpo.yaml"]);
    expect(JSON.parse(rendered.files["trl-grpo.yaml"]!)).toEqual(trlArgs(defaultRecipe(), job(defaultRecipe())));
    expect(Object.keys(rendered.files).sort()).toEqual(["evo_job.py", "evo_reward.py", "evo_trl_job.py", "job.json", "trl-grpo.yaml"]);
  });

  it("changes the rendered reward_weights when an intervention changes a component's weight", () => {
    const before = defaultRecipe();
    const after = recipeSchema.parse({ ...before, reward: { ...before.reward, components: { correctness: { weight: 1 }, format: { weight: 0.5 } } } });
    const weights = (recipe: Recipe) => JSON.parse(trlAdapter().render(job(recipe)).files["trl-grpo.yaml"]!).reward_weights;
    expect(weights(before)).toEqual([1, 0]);
    expect(weights(after)).toEqual([1, 0.5]);
  });

  it("refuses a reward component with neither a built-in nor a function, naming the factor", () => {
    const recipe = recipeSchema.parse({ ...defaultRecipe(), reward: { ...defaultRecipe().reward, components: { correctness: { weight: 1 }, brevity: { weight: 0.2 } } } });
    expect(() => trlAdapter().render(job(recipe))).toThrow(/reward\.components\.brevity/);
    const withFunction = job(recipe, { adapter: { dataset: "d", rewardFunctions: { brevity: { path: "/rewards.py", name: "brevity" } } } });
    expect(trlAdapter().render(withFunction).command[1]).toBe("evo_trl_job.py");
  });
});
