import { describe, expect, it } from "vitest";
import { dynamicSamplingTemplate } from "../__fixtures__/branch-fixtures.ts";
import type { Rollout } from "@evotrainer/contract";
import { MATH_DETECTORS, SWE_DETECTORS } from "../catalog/index.ts";
import { matchingSkills, skillSchema } from "../skill.ts";
import { compileHarness } from "./harness.ts";
import { healthReport } from "./health-report.ts";
import { DEFAULT_HEALTH_RULES } from "./health-rule.ts";

function r(uid: string, group: string, reward: number, response: string, extra: Partial<Rollout> = {}): Rollout {
  return { uid, split: "train", step: 3, taskId: group, groupId: group, sample: 0, prompt: "q", response, reward, rewardComponents: {}, responseTokens: response.length, turns: 1, truncated: false, groundTruth: "4", ...extra };
}

const harnessDef = {
  version: 7,
  detectors: [...MATH_DETECTORS],
  healthRules: [
    ...DEFAULT_HEALTH_RULES,
    { id: "format-errors", version: 1, level: "WARN" as const, layer: "behaviour" as const, description: "Many responses have no final answer", when: "label_rate['format_error'] > 0.25" },
  ],
};

describe("health report", () => {
  it("reports score, signal and behaviour findings with counts, rates and example rollouts", () => {
    const c = compileHarness(harnessDef);
    if (!c.ok) throw new Error(JSON.stringify(c.rejections));
    const rollouts = [
      r("a1", "a", 0, "2 + 2 is four"),
      r("a2", "a", 0, "I think it is 5.\nA: 5"),
      r("b1", "b", 1, "A: 4"),
      r("b2", "b", 1, "\\boxed{4}"),
      r("c1", "c", 1, "A: 4"),
      r("c2", "c", 0, "Let me", { truncated: true, finishReason: "length" }),
    ];
    const { labels } = c.harness.label(rollouts, "math");
    const report = healthReport(c.harness, rollouts, labels, { entropy: 0.01 });

    expect(report.harnessVersion).toBe(7);
    expect(report.metrics).toMatchObject({ rollouts: 6, groups: 3, pass_rate: 0.5, truncation_rate: 1 / 6 });
    expect(report.metrics.dead_group_ratio).toBeCloseTo(2 / 3, 10);
    expect(report.worst).toBe("CRIT");

    const signal = Object.fromEntries(report.layers.signal.map((f) => [f.source, f]));
    expect(signal["dead-groups-crit"]).toMatchObject({ level: "CRIT", evidence: { metrics: { dead_group_ratio: 2 / 3 }, exampleUids: ["a1", "b1"] } });
    expect(signal["entropy-collapse"]).toMatchObject({ level: "WARN", evidence: { metrics: { "trainer.entropy": 0.01 } } });

    const behaviour = Object.fromEntries(report.layers.behaviour.map((f) => [f.source, f]));
    expect(behaviour["format-errors"]).toMatchObject({ level: "WARN", evidence: { counts: { format_error: 2 }, exampleUids: ["a1", "c2"] } });
    expect(behaviour["truncation-warn"]).toMatchObject({ evidence: { metrics: { truncation_rate: 1 / 6 }, exampleUids: ["c2"] } });
    expect(behaviour["label:wrong_answer"]).toMatchObject({ level: "INFO", evidence: { counts: { wrong_answer: 3 }, exampleUids: ["a1", "a2", "c2"] } });
    expect(report.layers.score).toEqual([]);
    expect(report.ruleErrors).toEqual([]);
  });

  it("rejects a whole harness version when any rule fails its guards, naming each", () => {
    const c = compileHarness({
      version: 8,
      detectors: [
        ...SWE_DETECTORS,
        { id: "custom.shell", label: "shell", version: 1, domains: ["swe"], description: "x", when: "system('ls') == ''" },
      ],
      healthRules: [{ id: "bad", version: 1, level: "CRIT", layer: "signal", description: "x", when: "dead_groups > 0.5" }],
    });
    expect(c.ok).toBe(false);
    if (!c.ok) {
      expect(c.rejections).toEqual([
        { kind: "detector", id: "custom.shell", reason: "unknown_function", message: "when: unknown function 'system'" },
        { kind: "health_rule", id: "bad", reason: "type_error", message: "undeclared reference to 'dead_groups'" },
      ]);
    }
  });

  it("retrieves skills whose trigger fires, best track record first", () => {
    const c = compileHarness(harnessDef);
    if (!c.ok) throw new Error("harness");
    const report = healthReport(c.harness, [r("x", "g", 0, "no answer"), r("y", "g", 0, "none")], []);
    const template = dynamicSamplingTemplate;
    const skills = [
      skillSchema.parse({ id: "s1", name: "dynamic sampling", trigger: "dead_group_ratio > 0.5", template, expectedOutcome: "fewer dead groups", domains: ["math"], successes: 1, failures: 3 }),
      skillSchema.parse({ id: "s2", name: "dynamic sampling (proven)", trigger: "dead_group_ratio > 0.5", template, expectedOutcome: "fewer dead groups", domains: ["math"], successes: 5, failures: 0 }),
      skillSchema.parse({ id: "s3", name: "other domain", trigger: "dead_group_ratio > 0.5", template, expectedOutcome: "x", domains: ["code"] }),
      skillSchema.parse({ id: "s4", name: "not triggered", trigger: "truncation_rate > 0.5", template, expectedOutcome: "x", domains: ["math"] }),
    ];
    expect(matchingSkills(skills, report.metrics, "math").map((s) => s.id)).toEqual(["s2", "s1"]);
  });
});
