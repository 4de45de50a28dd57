import { describe, expect, it } from "vitest";
import { jobSchema } from "@evotrainer/contract";
import { defaultRecipe, factorsFor, recipeSchema, UNSUPPORTED_FACTORS, type Recipe } from "@evotrainer/core";
import { trlAdapter } from "./trl/trl-adapter.ts";
import { UnsupportedFactorError } from "./unsupported-factor.ts";
import { verlAdapter } from "./verl/verl-adapter.ts";

// Each refusable factor switched on, as an intervention on it would.
const SWITCHED_ON: Record<string, (r: Recipe) => void> = {
  "data.dynamicSampling": (r) => (r.data.dynamicSampling.enabled = true),
  "data.curriculum": (r) => (r.data.curriculum.enabled = true),
  "data.overlongFilter": (r) => (r.data.overlongFilter = true),
  "reward.overlong": (r) => (r.reward.overlong.enabled = true),
  "algo.maxTurns": (r) => (r.algo.maxTurns = 4),
};

function render(adapter: "trl" | "verl", recipe: Recipe) {
  const split = { dataset: "/data/promotion.parquet", samplesPerTask: 4, temperature: 0.6, maxResponseTokens: 1024, grader: "math" };
  const job = jobSchema.parse({
    contract: "evo.job/v1", runId: "r", branchId: "b", jobId: "j", kind: "train", domain: "math", policy: { base: "m" }, recipe,
    evaluation: { promotion: split, sealed: split, seed: 7 }, budget: { maxSeconds: 60, maxSteps: 2, gpuCount: 1 }, seed: 1, outputDir: "/jobs/j/output",
    adapter: adapter === "trl" ? { dataset: "/data/train.jsonl" } : { trainFiles: "/data/train.parquet", rolloutEngine: "vllm" },
  });
  return (adapter === "trl" ? trlAdapter() : verlAdapter()).render(job);
}

describe("the factors core withholds from proposers per trainer", () => {
  it.each(["trl", "verl"] as const)("are exactly the ones the %s adapter refuses", (adapter) => {
    for (const [factor, switchOn] of Object.entries(SWITCHED_ON)) {
      const recipe = recipeSchema.parse(structuredClone(defaultRecipe()));
      switchOn(recipe);
      const refused = (() => {
        try {
          render(adapter, recipe);
          return null;
        } catch (error) {
          if (error instanceof UnsupportedFactorError) return error.factor;
          throw error;
        }
      })();
      expect(refused === factor, `${adapter} ${factor}`).toBe(UNSUPPORTED_FACTORS[adapter].includes(factor));
      expect(factorsFor(adapter).some((f) => f.pattern.join(".") === factor), `${adapter} ${factor}`).toBe(refused === null);
    }
  });
});
