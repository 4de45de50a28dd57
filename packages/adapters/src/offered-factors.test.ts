import { describe, expect, it } from "vitest";
import { jobSchema } from "@evotrainer/contract";
import {
  algoSchema, defaultRecipe, estimatorSchema, FACTOR_PATTERNS, factorTrials, lossAggregationSchema, offeredFactors, type FactorPattern, type Recipe,
} from "@evotrainer/core";
import type { TrainerAdapter } from "./adapter.ts";
import { componentCandidates, dryRender } from "./dry-render.ts";
import { gymAdapter } from "./gym-adapter.ts";
import { trlAdapter } from "./trl/trl-adapter.ts";
import { UnsupportedFactorError } from "./unsupported-factor.ts";
import { verlAdapter } from "./verl/verl-adapter.ts";

const split = { dataset: "/data/promotion.parquet", samplesPerTask: 4, temperature: 0.6, maxResponseTokens: 1024, grader: "math" };
const TRAINERS: Record<string, { adapter: TrainerAdapter; settings: Record<string, unknown> }> = {
  gym: { adapter: gymAdapter(), settings: {} },
  trl: { adapter: trlAdapter(), settings: { dataset: "/data/train.jsonl" } },
  "trl with a brevity function": { adapter: trlAdapter(), settings: { dataset: "/data/train.jsonl", rewardFunctions: { brevity: { path: "/r.py" } } } },
  verl: { adapter: verlAdapter(), settings: { trainFiles: "/data/train.parquet", rolloutEngine: "vllm" } },
};

function job(recipe: Recipe, settings: Record<string, unknown>) {
  return jobSchema.parse({
    contract: "evo.job/v1", runId: "r", branchId: "b", jobId: "j", kind: "train", domain: "math", policy: { base: "m" }, recipe,
    evaluation: { promotion: split, sealed: split, seed: 7 }, budget: { maxSeconds: 60, maxSteps: 2, gpuCount: 1 }, seed: 1, outputDir: "/jobs/j/output", adapter: settings,
  });
}

/** The adapter's own answer, straight from render: null when it renders, else the factor it refuses. */
function refusal(adapter: TrainerAdapter, recipe: Recipe, settings: Record<string, unknown>): string | null {
  try {
    adapter.render(job(recipe, settings));
    return null;
  } catch (error) {
    if (error instanceof UnsupportedFactorError) return error.factor;
    throw error;
  }
}

const offers = (offered: readonly FactorPattern[], pattern: FactorPattern, value: string | undefined) =>
  offered.some((f) => f.pattern.join(".") === pattern.pattern.join(".") && (value === undefined || f.values?.includes(value)));

describe("the factor values offered to proposers", () => {
  const recipe = defaultRecipe();
  const names = [...componentCandidates({ rewardFunctions: { brevity: {} } }), "brevity"];

  it("walk every enumerated value and every factor but passthrough", () => {
    const trials = factorTrials(recipe, names);
    const valuesOf = (id: string) => trials.filter((t) => t.pattern.pattern.join(".") === id).map((t) => t.value);
    expect(valuesOf("algo.estimator")).toEqual(estimatorSchema.options.filter((v) => v !== recipe.algo.estimator));
    expect(valuesOf("algo.kl.mode")).toEqual(algoSchema.shape.kl.shape.mode.options.filter((v) => v !== recipe.algo.kl.mode));
    expect(valuesOf("algo.lossAggregation")).toEqual(lossAggregationSchema.options.filter((v) => v !== recipe.algo.lossAggregation));
    expect(valuesOf("reward.components.*")).toEqual(expect.arrayContaining(["correctness", "format", "brevity"]));
    const walked = new Set(trials.map((t) => t.pattern));
    expect(FACTOR_PATTERNS.filter((f) => !walked.has(f)).map((f) => f.pattern.join("."))).toEqual(["passthrough.*.*"]);
  });

  it.each(Object.keys(TRAINERS))("are exactly the values the %s adapter renders", (name) => {
    const { adapter, settings } = TRAINERS[name]!;
    const offered = offeredFactors(recipe, (r) => dryRender(adapter, job(r, settings)), names);
    for (const trial of factorTrials(recipe, names)) {
      const refused = refusal(adapter, trial.recipe, settings);
      const what = `${name}: ${trial.pattern.pattern.join(".")}${trial.value === undefined ? "" : ` = ${trial.value}`} (refused as ${refused})`;
      expect(offers(offered, trial.pattern, trial.value), what).toBe(refused === null);
    }
    expect(offered.some((f) => f.pattern.join(".") === "passthrough.*.*")).toBe(true);
  });

  it("withhold what TRL's GRPOTrainer cannot run, each value by value", () => {
    const offered = offeredFactors(recipe, (r) => dryRender(trlAdapter(), job(r, TRAINERS.trl!.settings)), names);
    const valuesOf = (id: string) => offered.find((f) => f.pattern.join(".") === id)?.values;
    expect(valuesOf("algo.estimator")).toEqual(["dr_grpo"]);
    expect(valuesOf("algo.kl.mode")).toEqual(["none"]);
    expect(valuesOf("algo.lossAggregation")).toEqual(["seq-mean-token-mean", "seq-mean-token-sum-norm"]);
    // A component TRL has no built-in or function for is not offered until the run names one.
    expect(valuesOf("reward.components.*")).toEqual(["correctness", "format"]);
    const withBrevity = offeredFactors(recipe, (r) => dryRender(trlAdapter(), job(r, TRAINERS["trl with a brevity function"]!.settings)), names);
    expect(withBrevity.find((f) => f.pattern.join(".") === "reward.components.*")?.values).toEqual(["correctness", "format", "brevity"]);
    for (const id of ["data.dynamicSampling", "data.curriculum", "reward.overlong", "algo.maxTurns"]) expect(valuesOf(id) ?? offered.some((f) => f.pattern.join(".") === id), id).toBe(false);
  });
});
