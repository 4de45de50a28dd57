import { describe, expect, it } from "vitest";
import { branchReport, rollout, verdictOf, dynamicSamplingTemplate } from "../__fixtures__/branch-fixtures.ts";
import { MATH_DETECTORS } from "../catalog/index.ts";
import { DEFAULT_HEALTH_RULES } from "../harness/health-rule.ts";
import type { Intervention } from "../intervention.ts";
import { skillSchema, type Skill } from "../skill.ts";
import type { SkillSource } from "./create-skill.ts";
import { learnFromBranch } from "./learn-from-branch.ts";
import { recordApplication, updateSkill } from "./update-skill.ts";

const template = dynamicSamplingTemplate;
const skill: Skill = skillSchema.parse({ id: "s1", name: "dynamic sampling", trigger: "dead_group_ratio > 0.5", template, expectedOutcome: "fewer dead groups", domains: ["math"], successes: 2, failures: 1 });
const evidence = { runId: "r", branchId: "b-9", delta: 0.04 };

describe("updateSkill", () => {
  it("counts a success with its evidence and domain, and a failure alone", () => {
    const won = updateSkill(skill, { success: true, evidence, domain: "code" });
    expect([won.successes, won.failures]).toEqual([3, 1]);
    expect(won.evidence).toEqual([evidence]);
    expect(won.domains).toEqual(["math", "code"]);
    const lost = updateSkill(skill, { success: false, evidence, domain: "code" });
    expect([lost.successes, lost.failures]).toEqual([2, 2]);
    expect(lost.evidence).toEqual([]);
    expect(lost.domains).toEqual(["math"]);
  });

  it("updates on every application: the skill an intervention came from, or one with the same change", () => {
    const other = { ...skill, id: "s2", template: { ...template, factor: "algo.lr", patch: [{ op: "replace" as const, path: "/algo/lr", value: 5e-7 }] } };
    const fromSkill: Intervention = { ...template, provenance: { kind: "skill", ref: "s1" } };
    const a = recordApplication([skill, other], fromSkill, { success: false });
    expect(a.updated).toEqual(["s1"]);
    expect(a.skills.map((s) => s.failures)).toEqual([2, 1]);
    // A rule that proposes the skill's very change applies the skill too, whatever its wording.
    const fromRule: Intervention = { ...template, hypothesis: "reworded", provenance: { kind: "rule", ref: "x" } };
    const b = recordApplication([skill, other], fromRule, { success: true });
    expect(b.updated).toEqual(["s1"]);
    expect(b.skills.map((s) => s.successes)).toEqual([3, 2]);
  });
});

describe("learnFromBranch", () => {
  const rollouts = [rollout("a1", "a", 0), rollout("a2", "a", 0), rollout("b1", "b", 1), rollout("b2", "b", 0)];
  const source = (branchId: string, promote: boolean, intervention: Intervention): SkillSource => ({
    runId: "run-1",
    branchId,
    domain: "math",
    intervention,
    report: branchReport([...MATH_DETECTORS], [...rollouts, rollout("c1", "c", 1), rollout("c2", "c", 1)]),
    healthRules: DEFAULT_HEALTH_RULES,
    verdict: verdictOf(promote, promote ? 0.05 : -0.01, promote ? [0.01, 0.09] : [-0.05, 0.03], -0.5),
  });
  const ruleIntervention: Intervention = { ...template, provenance: { kind: "rule", ref: "signal/dead-groups/dynamic-sampling" } };

  it("creates a skill from a success, strengthens it on the next, weakens it on a failure, never creates from a failure", () => {
    const first = learnFromBranch([], source("b-1", true, ruleIntervention), true);
    expect(first.created).toBeDefined();
    const id = first.created!.id;
    expect(first.skills.map((s) => [s.id, s.successes, s.failures])).toEqual([[id, 1, 0]]);

    const fromSkill: Intervention = { ...template, provenance: { kind: "skill", ref: id } };
    const second = learnFromBranch(first.skills, source("b-2", true, fromSkill), true);
    expect(second.created).toBeUndefined();
    expect(second.updated).toEqual([id]);
    expect(second.skills[0]).toMatchObject({ successes: 2, failures: 0 });
    expect(second.skills[0]!.evidence.map((e) => e.branchId)).toEqual(["b-1", "b-2"]);

    const third = learnFromBranch(second.skills, source("b-3", false, fromSkill), false);
    expect(third.skills[0]).toMatchObject({ successes: 2, failures: 1 });

    const failedRule: Intervention = { ...ruleIntervention, factor: "algo.lr", patch: [{ op: "replace", path: "/algo/lr", value: 5e-7 }] };
    expect(learnFromBranch([], source("b-4", false, failedRule), false)).toEqual({ skills: [], updated: [] });
  });
});
