import { describe, expect, it } from "vitest";
import { applyIntervention } from "./apply-intervention.ts";
import { changedFactors, factorOf } from "./factors.ts";
import { interventionSchema, type Intervention } from "./intervention.ts";
import type { JsonPatch } from "./json-patch.ts";
import { lockedEvaluationSchema } from "./locked-evaluation.ts";
import { defaultRecipe } from "./recipe.ts";

const locked = lockedEvaluationSchema.parse({
  promotion: { dataset: "gsm8k-test-promo", samplesPerTask: 4, temperature: 0.6, maxResponseTokens: 2048, grader: "math-verify" },
  sealed: { dataset: "gsm8k-test-sealed", samplesPerTask: 4, temperature: 0.6, maxResponseTokens: 2048, grader: "math-verify" },
  lockedPaths: ["/passthrough/verl/custom_reward_function.path"],
});

function intervention(factor: string, patch: JsonPatch): Intervention {
  return interventionSchema.parse({
    hypothesis: "if the format weight rises then format errors fall because they are punished",
    targetMetric: "label_rate.format_error",
    factor,
    patch,
    expectedEffect: { direction: "down", size: 0.05 },
    falsification: "format_error rate does not fall by 2 points within 100 steps",
    provenance: { kind: "rule", ref: "format-errors-high" },
  });
}

describe("factors", () => {
  it("maps recipe locations to the most specific declared factor", () => {
    expect(factorOf(["algo", "lr"])).toBe("algo.lr");
    expect(factorOf(["reward", "components", "format", "weight"])).toBe("reward.components.format.weight");
    expect(factorOf(["reward", "components", "length"])).toBe("reward.components.length");
    expect(factorOf(["reward", "overlong", "penalty"])).toBe("reward.overlong");
    expect(factorOf(["passthrough", "verl", "actor_rollout_ref.actor.ppo_epochs"])).toBe("passthrough.verl.actor_rollout_ref.actor.ppo_epochs");
    expect(factorOf(["algo", "nope"])).toBeUndefined();
  });

  it("reports a new passthrough section key by key", () => {
    const a = defaultRecipe();
    const b = { ...a, passthrough: { verl: { "x.y": 1, "x.z": 2 } } };
    expect(changedFactors(a, b)).toEqual({ factors: ["passthrough.verl.x.y", "passthrough.verl.x.z"], unknown: [] });
  });
});

describe("applyIntervention", () => {
  const recipe = defaultRecipe();

  it("applies a single-factor patch and returns the new recipe", () => {
    const r = applyIntervention(recipe, intervention("reward.components.format.weight", [
      { op: "test", path: "/reward/components/format/weight", value: 0 },
      { op: "replace", path: "/reward/components/format/weight", value: 0.2 },
    ]), locked);
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.recipe.reward.components.format?.weight).toBe(0.2);
      expect(r.factor).toBe("reward.components.format.weight");
    }
    expect(recipe.reward.components.format?.weight).toBe(0);
  });

  it("counts several leaves of one factor as one factor", () => {
    const r = applyIntervention(recipe, intervention("reward.overlong", [
      { op: "replace", path: "/reward/overlong/enabled", value: true },
      { op: "replace", path: "/reward/overlong/penalty", value: 0.5 },
    ]), locked);
    expect(r.ok).toBe(true);
  });

  it("rejects a two-factor patch, naming both factors", () => {
    const r = applyIntervention(recipe, intervention("algo.lr", [
      { op: "replace", path: "/algo/lr", value: 2e-6 },
      { op: "replace", path: "/algo/kl/coef", value: 0 },
    ]), locked);
    expect(r).toEqual({ ok: false, reason: "multiple_factors", message: expect.stringContaining("algo.kl.coef, algo.lr") });
  });

  it("rejects any touch of the locked evaluation, built-in or run-specific", () => {
    const verlVal = applyIntervention(recipe, intervention("passthrough.verl.actor_rollout_ref.rollout.val_kwargs.temperature", [
      { op: "add", path: "/passthrough/verl", value: {} },
      { op: "add", path: "/passthrough/verl/actor_rollout_ref.rollout.val_kwargs.temperature", value: 1.0 },
    ]), locked);
    expect(verlVal).toMatchObject({ ok: false, reason: "touches_locked_evaluation", path: "/passthrough/verl/actor_rollout_ref.rollout.val_kwargs.temperature" });
    const evalSection = applyIntervention(recipe, intervention("eval", [{ op: "add", path: "/eval", value: { samplesPerTask: 1 } }]), locked);
    expect(evalSection).toMatchObject({ ok: false, reason: "touches_locked_evaluation" });
    const withReward = { ...recipe, passthrough: { verl: { "custom_reward_function.path": "grader.py", "trainer.test_freq": 5 } } };
    const runLocked = applyIntervention(withReward, intervention("passthrough.verl.custom_reward_function.path", [
      { op: "move", from: "/passthrough/verl/custom_reward_function.path", path: "/passthrough/verl/x" },
    ]), locked);
    expect(runLocked).toMatchObject({ ok: false, reason: "touches_locked_evaluation", path: "/passthrough/verl/custom_reward_function.path" });
    // Rewriting the whole section drops trainer.test_freq without naming it.
    const wholeSection = applyIntervention(withReward, intervention("passthrough.verl.x", [
      { op: "replace", path: "/passthrough/verl", value: { "custom_reward_function.path": "grader.py", x: 1 } },
    ]), locked);
    expect(wholeSection).toMatchObject({ ok: false, reason: "touches_locked_evaluation", path: "/passthrough/verl/trainer.test_freq" });
    // Creating the section for an ordinary key is no touch.
    const newSection = applyIntervention(recipe, intervention("passthrough.verl.actor_rollout_ref.actor.ppo_epochs", [
      { op: "add", path: "/passthrough/verl", value: { "actor_rollout_ref.actor.ppo_epochs": 2 } },
    ]), locked);
    expect(newSection.ok).toBe(true);
  });

  it("rejects an unknown factor, a failing op, a no-op, a mislabelled factor and an invalid result", () => {
    expect(applyIntervention(recipe, intervention("algo.momentum", [{ op: "add", path: "/algo/momentum", value: 0.9 }]), locked))
      .toMatchObject({ ok: false, reason: "unknown_factor", path: "/algo/momentum" });
    expect(applyIntervention(recipe, intervention("algo.lr", [{ op: "replace", path: "/algo/learningRate", value: 1 }]), locked))
      .toMatchObject({ ok: false, reason: "patch_failed", message: "patch operation 0 failed: replace /algo/learningRate: path does not exist" });
    expect(applyIntervention(recipe, intervention("algo.lr", [{ op: "replace", path: "/algo/lr", value: 1e-6 }]), locked))
      .toMatchObject({ ok: false, reason: "no_change" });
    expect(applyIntervention(recipe, intervention("algo.lr", [{ op: "replace", path: "/algo/temperature", value: 0.7 }]), locked))
      .toMatchObject({ ok: false, reason: "factor_mismatch" });
    expect(applyIntervention(recipe, intervention("algo.groupSize", [{ op: "replace", path: "/algo/groupSize", value: 2.5 }]), locked))
      .toMatchObject({ ok: false, reason: "invalid_recipe", path: "algo.groupSize" });
  });
});
