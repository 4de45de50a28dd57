import { describe, expect, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { branchReport, rollout, verdictOf } from "../__fixtures__/branch-fixtures.ts";
import { MATH_DETECTORS } from "../catalog/index.ts";
import { DEFAULT_HEALTH_RULES } from "../harness/health-rule.ts";
import type { Intervention } from "../intervention.ts";
import { skillSchema, triggerFires } from "../skill.ts";
import { createSkill, type SkillSource } from "./create-skill.ts";

const dynamicSampling: Intervention = {
  hypothesis: "if dynamic sampling is enabled then dead_group_ratio falls because zero-variance groups are resampled",
  targetMetric: "dead_group_ratio",
  factor: "data.dynamicSampling",
  patch: [{ op: "replace", path: "/data/dynamicSampling/enabled", value: true }],
  expectedEffect: { direction: "down" },
  falsification: "dead_group_ratio does not fall",
  provenance: { kind: "rule", ref: "signal/dead-groups/dynamic-sampling" },
};

const formatWeight: Intervention = {
  hypothesis: "if the format component weighs 0.2 then format errors fall because an answer-less response earns less",
  targetMetric: "label_rate.format_error",
  factor: "reward.components.format.weight",
  patch: [{ op: "replace", path: "/reward/components/format/weight", value: 0.2 }],
  expectedEffect: { direction: "down" },
  falsification: "the format_error rate does not fall",
  provenance: { kind: "rule", ref: "behaviour/format-error/format-weight" },
};

// Three of four groups are dead (all 0 or all 1); half the responses commit to no final answer.
const parentRollouts: Rollout[] = [
  rollout("a1", "a", 0, { response: "I am not sure" }),
  rollout("a2", "a", 0, { response: "Maybe five" }),
  rollout("b1", "b", 1),
  rollout("b2", "b", 1),
  rollout("c1", "c", 0, { response: "no idea" }),
  rollout("c2", "c", 0, { response: "hmm" }),
  rollout("d1", "d", 1),
  rollout("d2", "d", 0, { response: "A: 5" }),
];

function source(intervention: Intervention, promote = true): SkillSource {
  return {
    runId: "run-1",
    branchId: "b-2",
    parentBranchId: "b-1",
    domain: "math",
    intervention,
    report: branchReport([...MATH_DETECTORS], parentRollouts),
    healthRules: DEFAULT_HEALTH_RULES,
    verdict: verdictOf(promote, 0.06, [0.02, 0.1], -0.75),
  };
}

describe("createSkill", () => {
  it("turns a verified success into a skill: the motivating rule as trigger, the intervention as template, the branch as evidence", () => {
    const out = createSkill(source(dynamicSampling));
    if (!out.ok) throw new Error(out.message);
    const { skill } = out;
    expect(skillSchema.parse(skill)).toEqual(skill);
    expect(skill.trigger).toBe("(dead_group_ratio > 0.5)");
    const { provenance: _p, ...template } = dynamicSampling;
    expect(skill.template).toEqual(template);
    expect(skill.domains).toEqual(["math"]);
    expect([skill.successes, skill.failures]).toEqual([1, 0]);
    expect(skill.evidence).toEqual([{ runId: "run-1", branchId: "b-2", parentBranchId: "b-1", delta: 0.06, ci: [0.02, 0.1], targetDelta: -0.75 }]);
    expect(skill.expectedOutcome).toBe("dead_group_ratio down; dead_group_ratio moved -0.7500; score Δ 0.0600 vs parent, CI [0.0200, 0.1000]");
    expect(skill.name).toBe("data.dynamicSampling when dead-groups-crit");
    // The same change with the same trigger is the same skill.
    const again = createSkill(source(dynamicSampling));
    expect(again.ok && again.skill.id).toBe(skill.id);
  });

  it("builds a label's trigger from its census: at least half the rate observed", () => {
    const out = createSkill(source(formatWeight));
    if (!out.ok) throw new Error(out.message);
    // 4 of 8 responses have no final answer.
    expect(out.skill.trigger).toBe("('format_error' in label_rate && label_rate['format_error'] >= 0.25)");
    expect(triggerFires(out.skill.trigger, branchReport([...MATH_DETECTORS], parentRollouts).metrics)).toBe(true);
  });

  it("falls back to the targeted metric when no finding reads it", () => {
    const passRate: Intervention = { ...dynamicSampling, targetMetric: "pass_rate", expectedEffect: { direction: "up" } };
    const out = createSkill(source(passRate));
    if (!out.ok) throw new Error(out.message);
    // pass_rate 3/8 = 0.375; the trigger holds up to half again above it.
    expect(out.skill.trigger).toBe("(pass_rate <= 0.5625)");
  });

  it("refuses a branch the gate did not promote", () => {
    expect(createSkill(source(dynamicSampling, false))).toMatchObject({ ok: false, reason: "not_verified" });
  });
});
