import { describe, expect, it } from "vitest";
import { branchReport, rollout, verdictOf, dynamicSamplingTemplate } from "../__fixtures__/branch-fixtures.ts";
import { MATH_DETECTORS } from "../catalog/index.ts";
import { DEFAULT_HEALTH_RULES } from "../harness/health-rule.ts";
import type { Intervention } from "../intervention.ts";
import { skillSchema } from "../skill.ts";
import { createSkill } from "./create-skill.ts";
import { retrieveSkills } from "./retrieve-skills.ts";

const template = dynamicSamplingTemplate;
const skill = (id: string, trigger: string, domains: string[], successes = 0, failures = 0) =>
  skillSchema.parse({ id, name: id, trigger, template, expectedOutcome: "x", domains, successes, failures });

// 2 of 3 groups dead; no truncation.
const metrics = branchReport([...MATH_DETECTORS], [
  rollout("a1", "a", 0), rollout("a2", "a", 0),
  rollout("b1", "b", 1), rollout("b2", "b", 1),
  rollout("c1", "c", 1), rollout("c2", "c", 0),
]).metrics;

describe("retrieveSkills", () => {
  it("returns skills whose trigger fires, this domain's first, other domains' as a fallback", () => {
    const skills = [
      skill("code-proven", "dead_group_ratio > 0.5", ["code"], 9, 0),
      skill("math-new", "dead_group_ratio > 0.5", ["math"]),
      skill("math-proven", "dead_group_ratio > 0.6", ["math"], 4, 1),
      skill("swe", "dead_group_ratio > 0.3", ["swe"], 1, 0),
      skill("math-silent", "truncation_rate > 0.5", ["math"], 9, 0),
      skill("code-silent", "truncation_rate > 0.5", ["code"], 9, 0),
    ];
    expect(retrieveSkills(skills, metrics, "math").map((r) => [r.skill.id, r.sameDomain])).toEqual([
      ["math-proven", true],
      ["math-new", true],
      ["code-proven", false],
      ["swe", false],
    ]);
    expect(retrieveSkills(skills, metrics, "custom").map((r) => r.skill.id)).toEqual(["code-proven", "math-proven", "swe", "math-new"]);
  });

  it("finds a skill created from one branch when a later branch shows the same symptom", () => {
    const intervention: Intervention = { ...template, provenance: { kind: "rule" } };
    const created = createSkill({
      runId: "run-1",
      branchId: "b-2",
      domain: "math",
      intervention,
      report: branchReport([...MATH_DETECTORS], [rollout("x1", "x", 0), rollout("x2", "x", 0), rollout("y1", "y", 1), rollout("y2", "y", 1)]),
      healthRules: DEFAULT_HEALTH_RULES,
      verdict: verdictOf(true, 0.05, [0.01, 0.09], -1),
    });
    if (!created.ok) throw new Error(created.message);
    expect(retrieveSkills([created.skill], metrics, "math").map((r) => r.skill.id)).toEqual([created.skill.id]);
    expect(retrieveSkills([created.skill], metrics, "swe")).toEqual([{ skill: created.skill, sameDomain: false }]);
    const healthy = branchReport([...MATH_DETECTORS], [rollout("z1", "z", 1), rollout("z2", "z", 0)]).metrics;
    expect(retrieveSkills([created.skill], healthy, "math")).toEqual([]);
  });
});
