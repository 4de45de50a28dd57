import { describe, expect, it } from "vitest";
import { defaultRecipe } from "./recipe.ts";
import { runConfigSchema } from "./run-config.ts";
import { parseTrainerSettings } from "./trainer-settings.ts";

const split = { dataset: "/data/promotion.jsonl", samplesPerTask: 4, temperature: 0.7, maxResponseTokens: 512, grader: "math" };
const config = (adapter: string, trainer: unknown) => ({
  name: "settings", domain: "math", basePolicy: "Qwen/Qwen2.5-0.5B-Instruct", recipe: defaultRecipe(),
  evaluation: { promotion: split, sealed: split, seed: 7 },
  autonomy: { mode: "full", gates: { diagnosis: false, design: false, backtest: false, completion: false }, escalateAfterFailures: 3, gateFirstBranchesPerDomain: 0 },
  budget: { gpuSeconds: 3600, branches: 4, rounds: 2 },
  adapter, trainer,
});
const issues = (adapter: string, trainer: unknown) => {
  const parsed = runConfigSchema.safeParse(config(adapter, trainer));
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("trainer settings in the run config", () => {
  it("takes each adapter's settings and fills their defaults for the job", () => {
    const trl = { dataset: "/data/train.jsonl", rewardFunctions: { brevity: { path: "/rewards.py", name: "brevity" } }, args: { per_device_train_batch_size: 4, bf16: false } };
    expect(issues("trl", trl)).toEqual([]);
    expect(parseTrainerSettings("trl", trl)).toEqual({ python: "python3", env: {}, ...trl });
    expect(parseTrainerSettings("verl", { trainFiles: ["/data/a.parquet"] })).toMatchObject({ python: "python3", nnodes: 1, rolloutEngine: "vllm", overrides: {} });
    expect(issues("gym", { stepsPerSecond: 50 })).toEqual([]);
    // A run without settings (an imported run) is still a run; the job wrapper refuses to train without a dataset.
    expect(issues("trl", {})).toEqual([]);
  });

  it("names the field and the adapter of a setting that does not fit", () => {
    expect(issues("trl", { dataset: "/d.jsonl", reward_funcs: ["x"] })).toEqual([expect.stringMatching(/^trainer: .*reward_funcs.*\(trl settings\)$/)]);
    expect(issues("trl", { dataset: "/d.jsonl", rewardFunctions: { Brevity: { path: "/r.py" } } })).toEqual([expect.stringMatching(/^trainer\.rewardFunctions\.Brevity: Invalid key/)]);
    expect(issues("trl", { dataset: "/d.jsonl", rewardFunctions: { brevity: { path: "/r.py", name: "not a name" } } })).toEqual([expect.stringMatching(/^trainer\.rewardFunctions\.brevity\.name: /)]);
    expect(issues("verl", { trainFiles: "/t.parquet", rolloutEngine: "hf" })).toEqual([expect.stringMatching(/^trainer\.rolloutEngine: .*\(verl settings\)$/)]);
    expect(issues("verl", { trainFiles: "/t.parquet", nnodes: 0 })).toEqual([expect.stringMatching(/^trainer\.nnodes: /)]);
  });
});
