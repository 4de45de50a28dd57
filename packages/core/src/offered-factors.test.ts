import { describe, expect, it } from "vitest";
import { FACTOR_PATTERNS, offersFactor } from "./factors.ts";
import { factorTrials, offeredFactors, type RenderCheck } from "./offered-factors.ts";
import { defaultRecipe, recipeSchema } from "./recipe.ts";

// A trainer that runs only GRPO, the math built-ins, and no dynamic sampling.
const picky: RenderCheck = (r) => {
  if (r.algo.estimator !== "grpo") return { ok: false, factor: "algo.estimator", message: `no ${r.algo.estimator}` };
  if (r.data.dynamicSampling.enabled) return { ok: false, factor: "data.dynamicSampling", message: "no resampling" };
  const foreign = Object.keys(r.reward.components).find((c) => c !== "correctness" && c !== "format");
  return foreign ? { ok: false, factor: `reward.components.${foreign}`, message: "no function" } : { ok: true };
};

describe("the factors offered on a recipe", () => {
  it("tries each factor with valid recipes, one factor changed at a time", () => {
    const trials = factorTrials(defaultRecipe(), ["validity"]);
    for (const t of trials) expect(recipeSchema.safeParse(t.recipe).success, t.pattern.pattern.join(".")).toBe(true);
    const tried = new Set(trials.map((t) => t.pattern));
    expect(FACTOR_PATTERNS.filter((f) => !tried.has(f)).map((f) => f.pattern.join("."))).toEqual(["passthrough.*.*"]);
    expect(trials.filter((t) => t.pattern.pattern.join(".") === "reward.components.*").map((t) => t.value)).toEqual(["correctness", "format", "validity"]);
  });

  it("keeps only the factors and values that render", () => {
    const offered = offeredFactors(defaultRecipe(), picky, ["validity", "brevity"]);
    const byId = new Map(offered.map((f) => [f.pattern.join("."), f]));
    // grpo is the recipe's own estimator: no other one renders, so the factor is not offered.
    expect(byId.has("algo.estimator")).toBe(false);
    expect(byId.has("data.dynamicSampling")).toBe(false);
    expect(byId.get("reward.components.*")?.values).toEqual(["correctness", "format"]);
    expect(byId.get("algo.kl.mode")?.values).toEqual(["none", "reward"]);
    expect(byId.get("algo.lr")).toEqual({ pattern: ["algo", "lr"], description: "actor learning rate" });
    expect(byId.has("passthrough.*.*")).toBe(true);
    expect(offersFactor(offered, "reward.components.format.weight")).toBe(true);
    expect(offersFactor(offered, "passthrough.verl.actor_rollout_ref.actor.ppo_epochs")).toBe(true);
    expect(offersFactor(offered, "data.dynamicSampling")).toBe(false);
    expect(offersFactor(offered, "algo.nonsense")).toBe(false);
  });
});
