import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { jobSchema } from "@evotrainer/contract";
import { parseTrainerSettings, runConfigSchema } from "@evotrainer/core";
import { trlAdapter } from "./trl/trl-adapter.ts";
import { verlAdapter } from "./verl/verl-adapter.ts";

/** The first train job of an example run, as the worker builds it (buildJob in packages/core). */
function firstJob(file: string) {
  const config = runConfigSchema.parse(parse(readFileSync(new URL(`../../../${file}`, import.meta.url), "utf8")));
  const job = jobSchema.parse({
    contract: "evo.job/v1", runId: "run", branchId: "base", jobId: "job", kind: "train", domain: config.domain,
    policy: { base: config.basePolicy }, recipe: config.recipe, evaluation: config.evaluation, evalSplits: ["promotion"],
    budget: { maxSeconds: 3600, maxSteps: config.search.stepsPerBranch, gpuCount: config.resources.gpusPerJob },
    seed: 1, outputDir: "/jobs/job/output", adapter: parseTrainerSettings(config.adapter, config.trainer),
  });
  return { config, job };
}

describe("the README's example runs on real trainers", () => {
  it("examples/trl-math.yaml renders a TRL job on a GPU", () => {
    const { job } = firstJob("examples/trl-math.yaml");
    const rendered = trlAdapter().render(job);
    expect(rendered.command).toEqual(["/opt/venvs/trl/bin/python", "evo_trl_job.py", "job.json", "trl-grpo.yaml"]);
    expect(JSON.parse(rendered.files["trl-grpo.yaml"]!)).toMatchObject({ use_cpu: false, num_generations: 8, generation_batch_size: 32, reward_weights: [1, 0.1], bf16: true, max_steps: 200 });
  });

  it("examples/verl-math.yaml renders a verl job on 8 GPUs that validates and saves at its last step", () => {
    const { job } = firstJob("examples/verl-math.yaml");
    const { command } = verlAdapter().render(job);
    expect(command.slice(0, 7)).toEqual(["python3", "evo_verl_job.py", "job.json", "--", "python3", "-m", "verl.trainer.main_ppo"]);
    expect(command).toEqual(expect.arrayContaining(["trainer.n_gpus_per_node=8", "trainer.test_freq=100", "trainer.save_freq=100", "data.train_files=/data/gsm8k/train.parquet", "data.train_batch_size=256"]));
  });
});
