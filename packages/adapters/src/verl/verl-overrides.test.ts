import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { jobSchema, type Job } from "@evotrainer/contract";
import { defaultRecipe, recipeSchema, type Recipe } from "@evotrainer/core";
import { UnsupportedFactorError } from "../unsupported-factor.ts";
import { verlAdapter } from "./verl-adapter.ts";
import { verlOverrides } from "./verl-overrides.ts";

// verl's generated trainer config (commit in tests/fixtures/real/verl-commit.txt): the key paths that exist.
const config = parse(readFileSync(new URL("../../../../tests/fixtures/real/verl-ppo-trainer-config.yaml", import.meta.url), "utf8")) as Record<string, unknown>;

function existsInConfig(path: string): boolean {
  let node: unknown = config;
  for (const part of path.split(".")) {
    if (typeof node !== "object" || node === null || !(part in node)) return false;
    node = (node as Record<string, unknown>)[part];
  }
  return true;
}

function job(recipe: Recipe, changes: Partial<Job> = {}): Job {
  const evalSettings = { samplesPerTask: 4, temperature: 0.6, maxResponseTokens: 4096, grader: "math_verify" };
  return jobSchema.parse({
    contract: "evo.job/v1",
    runId: "run-1",
    branchId: "branch-2",
    jobId: "job-3",
    kind: "train",
    domain: "math",
    policy: { base: "Qwen/Qwen2.5-Math-1.5B" },
    recipe,
    evaluation: {
      promotion: { dataset: "/data/gsm8k/promotion.parquet", ...evalSettings },
      sealed: { dataset: "/data/gsm8k/sealed.parquet", ...evalSettings },
      seed: 7,
    },
    budget: { maxSeconds: 3600, maxSteps: 40, gpuCount: 8 },
    seed: 42,
    outputDir: "/runs/run-1/job-3/output",
    adapter: { trainFiles: ["/data/gsm8k/train.parquet"], rolloutEngine: "vllm", rewardFunction: { path: "/opt/reward.py" } },
    ...changes,
  });
}

const asMap = (overrides: string[]) => new Map(overrides.map((o) => [o.slice(0, o.indexOf("=")), o.slice(o.indexOf("=") + 1)]));

const ppoWithRewardKl: Recipe = recipeSchema.parse({
  ...defaultRecipe(),
  algo: { ...defaultRecipe().algo, estimator: "gae", lr: 3e-7, kl: { mode: "reward", coef: 0.05 }, clip: { low: 0.2, high: 0.2 }, entropyCoef: 0.001, groupSize: 1, temperature: 0.9, maxResponseTokens: 1024, lossAggregation: "seq-mean-token-mean" },
  passthrough: { verl: { "actor_rollout_ref.actor.ppo_epochs": 2, "critic.optim.lr": 1e-5 } },
});
const drGrpoDapo: Recipe = recipeSchema.parse({
  ...defaultRecipe(),
  algo: { ...defaultRecipe().algo, estimator: "dr_grpo", kl: { mode: "none", coef: 0 }, clip: { low: 0.2, high: 0.28 }, groupSize: 16, maxTurns: 4, lossAggregation: "seq-mean-token-sum-norm" },
  data: { ...defaultRecipe().data, dynamicSampling: { enabled: true, maxResampleRounds: 5 } },
  passthrough: { verl: { "trainer.logger": ["console", "file", "tensorboard"] } },
});

describe("verlOverrides", () => {
  const recipes: [string, Recipe, Partial<Job>][] = [
    ["the default GRPO recipe", defaultRecipe(), {}],
    ["PPO with KL in the reward, from a parent checkpoint", ppoWithRewardKl, { policy: { base: "Qwen/Qwen2.5-Math-1.5B", checkpoint: "/runs/run-1/job-2/verl/checkpoints/global_step_20" } }],
    ["Dr. GRPO with dynamic sampling, multi-turn, as an eval job", drGrpoDapo, { kind: "eval", evalSplits: ["sealed"] }],
    ["the default recipe on two nodes of a Ray cluster", defaultRecipe(), { adapter: { nnodes: 2, rayAddress: "http://head:8265", rolloutEngine: "vllm" } }],
  ];

  it.each(recipes)("renders only keys that exist in verl's trainer config: %s", (_name, recipe, changes) => {
    const overrides = verlOverrides(recipe, job(recipe, changes));
    expect(overrides.length).toBeGreaterThan(20);
    expect(existsInConfig("actor_rollout_ref.actor.no_such_key"), "the check can fail").toBe(false);
    for (const override of overrides) {
      const key = override.slice(0, override.indexOf("="));
      expect(override, "key=value").toMatch(/^[a-z_.]+=.+$/);
      expect(existsInConfig(key), `${key} is not in verl-ppo-trainer-config.yaml`).toBe(true);
    }
    expect(new Set(overrides.map((o) => o.split("=")[0])).size, "each key once").toBe(overrides.length);
  });

  it("maps the default GRPO recipe to verl's GRPO settings", () => {
    const o = asMap(verlOverrides(defaultRecipe(), job(defaultRecipe())));
    expect(Object.fromEntries(o)).toMatchObject({
      "algorithm.adv_estimator": "grpo",
      "algorithm.norm_adv_by_std_in_grpo": "true",
      "actor_rollout_ref.actor.optim.lr": "0.000001",
      "actor_rollout_ref.actor.use_kl_loss": "true",
      "actor_rollout_ref.actor.kl_loss_coef": "0.001",
      "algorithm.use_kl_in_reward": "false",
      "actor_rollout_ref.actor.clip_ratio_low": "0.2",
      "actor_rollout_ref.actor.clip_ratio_high": "0.28",
      "actor_rollout_ref.actor.entropy_coeff": "0",
      "actor_rollout_ref.rollout.n": "8",
      "actor_rollout_ref.rollout.temperature": "1",
      "data.max_response_length": "4096",
      "actor_rollout_ref.actor.loss_agg_mode": "token-mean",
      "actor_rollout_ref.rollout.multi_turn.enable": "false",
      "algorithm.filter_groups.enable": "false",
      "actor_rollout_ref.model.path": "Qwen/Qwen2.5-Math-1.5B",
      "data.train_files": "[/data/gsm8k/train.parquet]",
      "data.val_files": "/data/gsm8k/promotion.parquet",
      "actor_rollout_ref.rollout.val_kwargs.n": "4",
      "reward.custom_reward_function.path": "/runs/run-1/job-3/evo_reward.py",
      "reward.custom_reward_function.name": "compute_score",
      "trainer.logger": "[console,file]",
      "trainer.rollout_data_dir": "/runs/run-1/job-3/output/verl/rollouts",
      "trainer.validation_data_dir": "/runs/run-1/job-3/output/verl/validation",
      "trainer.total_training_steps": "40",
      "trainer.n_gpus_per_node": "8",
      "trainer.project_name": "run-1",
      "trainer.experiment_name": "branch-2",
    });
    expect(o.has("algorithm.kl_ctrl.kl_coef")).toBe(false);
  });

  it("puts KL in the reward, resumes from the parent's checkpoint and applies passthrough keys verbatim", () => {
    const o = asMap(verlOverrides(ppoWithRewardKl, job(ppoWithRewardKl, { policy: { base: "m", checkpoint: "/ckpt/global_step_20" } })));
    expect(o.get("algorithm.adv_estimator")).toBe("gae");
    expect(o.has("algorithm.norm_adv_by_std_in_grpo")).toBe(false);
    expect(o.get("algorithm.use_kl_in_reward")).toBe("true");
    expect(o.get("algorithm.kl_ctrl.kl_coef")).toBe("0.05");
    expect(o.get("actor_rollout_ref.actor.use_kl_loss")).toBe("false");
    expect(o.get("trainer.resume_mode")).toBe("resume_path");
    expect(o.get("trainer.resume_from_path")).toBe("/ckpt/global_step_20");
    expect(o.get("actor_rollout_ref.actor.ppo_epochs")).toBe("2");
    expect(o.get("critic.optim.lr")).toBe("0.00001");
  });

  it("renders Dr. GRPO as GRPO without std scaling, dynamic sampling, multi-turn, and an eval job as val_only", () => {
    const o = asMap(verlOverrides(drGrpoDapo, job(drGrpoDapo, { kind: "eval", evalSplits: ["sealed"] })));
    expect(o.get("algorithm.adv_estimator")).toBe("grpo");
    expect(o.get("algorithm.norm_adv_by_std_in_grpo")).toBe("false");
    expect(o.get("algorithm.filter_groups.enable")).toBe("true");
    expect(o.get("algorithm.filter_groups.max_num_gen_batches")).toBe("5");
    expect(o.get("actor_rollout_ref.rollout.multi_turn.max_assistant_turns")).toBe("4");
    expect(o.get("trainer.val_only")).toBe("true");
    expect(o.get("data.val_files")).toBe("/data/gsm8k/sealed.parquet");
    expect(o.has("trainer.total_training_steps")).toBe(false);
    // A passthrough key replaces the adapter's value in place rather than adding a second override.
    expect(o.get("trainer.logger")).toBe("[console,file,tensorboard]");
  });

  it("refuses factors verl's trainer config cannot express instead of dropping them", () => {
    const overlong = recipeSchema.parse({ ...defaultRecipe(), reward: { ...defaultRecipe().reward, overlong: { enabled: true, bufferTokens: 512, penalty: 1 } } });
    expect(() => verlOverrides(overlong, job(overlong))).toThrow(UnsupportedFactorError);
    const curriculum = recipeSchema.parse({ ...defaultRecipe(), data: { ...defaultRecipe().data, curriculum: { enabled: true, minPassRate: 0.1, maxPassRate: 0.9 } } });
    expect(() => verlOverrides(curriculum, job(curriculum))).toThrow(/data\.curriculum/);
  });
});

describe("verlAdapter", () => {
  it("launches verl's trainer through the job wrapper, with the overrides, and points the file logger at the contract's metrics.jsonl", () => {
    const rendered = verlAdapter().render(job(defaultRecipe()));
    expect(rendered.command.slice(0, 4)).toEqual(["python3", "evo_verl_job.py", "job.json", "--"]);
    expect(rendered.command.slice(4, 7)).toEqual(["python3", "-m", "verl.trainer.main_ppo"]);
    expect(rendered.command.slice(7)).toEqual(verlOverrides(defaultRecipe(), job(defaultRecipe())));
    expect(Object.keys(rendered.files).sort()).toEqual(["evo_job.py", "evo_reward.py", "evo_verl_job.py", "job.json"]);
    expect(rendered.env.VERL_FILE_LOGGER_PATH).toBe("/runs/run-1/job-3/output/metrics.jsonl");
    expect(JSON.parse(rendered.files["job.json"]!).jobId).toBe("job-3");
  });

  it("ships the reward wrapper in the job's directory and points verl's custom reward function at it", () => {
    const rendered = verlAdapter().render(job(defaultRecipe()));
    const o = asMap(rendered.command.slice(3));
    expect(o.get("reward.custom_reward_function.path")).toBe("/runs/run-1/job-3/evo_reward.py");
    expect(o.get("reward.custom_reward_function.name")).toBe("compute_score");
    const wrapper = rendered.files["evo_reward.py"]!;
    expect(wrapper).toMatch(/^def compute_score\(data_source, solution_str, ground_truth, extra_info=None, \*\*kwargs\):$/m);
    const config = JSON.parse(JSON.parse(/^CONFIG = json\.loads\((".*")\)$/m.exec(wrapper)![1]!) as string);
    expect(config).toEqual({
      domain: "math",
      weights: { correctness: 1, format: 0 },
      delegate: { path: "/opt/reward.py", name: "compute_score" },
      sideFile: "/runs/run-1/job-3/output/verl/reward_components.jsonl",
    });
  });

  it("refuses a reward component that has no built-in and no reward module to compute it", () => {
    const recipe = recipeSchema.parse({ ...defaultRecipe(), reward: { ...defaultRecipe().reward, components: { correctness: { weight: 1 }, tests_pass: { weight: 0.5 } } } });
    expect(() => verlAdapter().render(job(recipe, { adapter: { rolloutEngine: "vllm" } }))).toThrow(/reward\.components\.tests_pass/);
    expect(verlAdapter().render(job(recipe)).files["evo_reward.py"]).toContain("tests_pass");
  });

  it("submits a job that spans several nodes to the Ray cluster, with its environment and without its outputs", () => {
    const multiNode = job(defaultRecipe(), { adapter: { nnodes: 2, rayAddress: "http://head:8265", rolloutEngine: "vllm" } });
    const { command: wrapped, env } = verlAdapter().render(multiNode);
    expect(wrapped.slice(0, 4)).toEqual(["python3", "evo_verl_job.py", "job.json", "--"]);
    const command = wrapped.slice(4);
    const separator = command.indexOf("--");
    expect(command.slice(0, separator)).toEqual([
      "ray", "job", "submit", "--address", "http://head:8265", "--working-dir", "/runs/run-1/job-3", "--runtime-env-json", expect.any(String),
    ]);
    expect(JSON.parse(command[separator - 1]!)).toEqual({ env_vars: env, excludes: ["output/"] });
    expect(command.slice(separator + 1, separator + 4)).toEqual(["python3", "-m", "verl.trainer.main_ppo"]);
    const o = asMap(command.slice(separator + 4));
    expect(o.get("trainer.nnodes")).toBe("2");
    expect(o.get("trainer.n_gpus_per_node")).toBe("4");
    // Every node runs in the uploaded working dir, so the wrapper is found by a relative path.
    expect(o.get("reward.custom_reward_function.path")).toBe("evo_reward.py");

    expect(() => verlAdapter().render(job(defaultRecipe(), { adapter: { nnodes: 2 } }))).toThrow(/rayAddress/);
    expect(() => verlAdapter().render(job(defaultRecipe(), { adapter: { nnodes: 3, rayAddress: "http://head:8265" } }))).toThrow(/8 GPUs do not split evenly over 3 nodes/);
  });
});
