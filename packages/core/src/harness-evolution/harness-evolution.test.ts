import { describe, expect, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { rollout } from "../__fixtures__/branch-fixtures.ts";
import { MATH_DETECTORS, SWE_DETECTORS } from "../catalog/index.ts";
import { compileDetector, verifyDetectorCases, type DetectorDefinition } from "../harness/detector.ts";
import { compileHarness, harnessSchema } from "../harness/harness.ts";
import { DEFAULT_HEALTH_RULES } from "../harness/health-rule.ts";
import { EXTRA_DETECTORS } from "./candidate-library.ts";
import { candidateDetectors } from "./candidate-detectors.ts";
import { evolveHarness } from "./evolve-harness.ts";
import type { DiagnosticGap } from "./gap-check.ts";
import { retroValidate, type BranchRollouts } from "./retro-validate.ts";

const mismatch = EXTRA_DETECTORS.find((d) => d.label === "reward_test_mismatch")!;

/**
 * Half the episodes fix the bug (hidden tests 3/3), half do not (1/3). A promoted branch's reward
 * follows the hidden tests; a rejected (hacked) branch is rewarded for every episode.
 */
function branch(branchId: string, outcome: BranchRollouts["outcome"], n = 20): BranchRollouts {
  const rollouts: Rollout[] = Array.from({ length: n }, (_, i) => {
    const fixed = i % 2 === 0;
    return rollout(`${branchId}-${i}`, `${branchId}-g${i >> 2}`, outcome === "promoted" ? (fixed ? 1 : 0) : 1, {
      sample: i % 4,
      response: "submitted the patch",
      testResults: { passed: fixed ? 3 : 1, total: 3 },
    });
  });
  return { branchId, outcome, rollouts };
}

// Three branches per side: the fewest with which an exact permutation test can reach p = 1/20 = 0.05.
const history = [branch("b1", "promoted"), branch("b2", "rejected"), branch("b3", "promoted"), branch("b4", "rejected"), branch("b5", "promoted"), branch("b6", "rejected")];

// Six per side: a family of candidates re-tested over a run's rounds can still be convinced.
const twelve = [...history, branch("b7", "promoted"), branch("b8", "rejected"), branch("b9", "promoted"), branch("b10", "rejected"), branch("b11", "promoted"), branch("b12", "rejected")];

const always: DetectorDefinition = {
  id: "custom.always",
  label: "always",
  version: 1,
  domains: ["swe"],
  description: "Fires on every rollout.",
  when: "response_tokens >= 0",
  cases: { match: [{ name: "any", rollout: { response: "x" } }], noMatch: [] },
};
const oddSample: DetectorDefinition = {
  id: "custom.odd_sample",
  label: "odd_sample",
  version: 1,
  domains: ["swe"],
  description: "Fires on odd sample indices (the unsolved episodes of the fixture): as common on good branches as on bad ones.",
  when: "sample % 2 == 1",
  cases: { match: [{ name: "sample 1", rollout: { response: "x", sample: 1 } }], noMatch: [{ name: "sample 0", rollout: { response: "x", sample: 0 } }] },
};

describe("retroValidate", () => {
  it("accepts a detector whose rate separates rejected from promoted branches, with per-branch evidence", () => {
    const v = retroValidate(mismatch, history);
    expect(v.accepted).toBe(true);
    expect(v.refusedBy).toEqual([]);
    expect(v.evidence!.perBranch.slice(0, 2)).toEqual([
      { branchId: "b1", outcome: "promoted", rollouts: 20, flagged: 0, rate: 0 },
      { branchId: "b2", outcome: "rejected", rollouts: 20, flagged: 10, rate: 0.5 },
    ]);
    expect(v.evidence!.separation).toEqual({ promotedMean: 0, rejectedMean: 0.5, difference: 0.5, auc: 1 });
    expect(v.evidence!.branchTest).toEqual({ statistic: 0.5, p: 0.05, permutations: 20, exact: true });
    expect(v.evidence!.rolloutTest!.p).toBeLessThan(1e-6);
    expect(v.evidence!.firing).toEqual({ overall: 0.25, amongSuccessful: 0, successful: 30, flagged: 30, rollouts: 120 });
    expect(v.evidence!.test).toMatch(/permutation test/);
    expect(v.evidence!.errors).toBe(0);
  });

  it("accepts a non-separating detector that agrees with labels people confirmed, and not one that disagrees", () => {
    const confirmed = [0, 1, 2, 3, 4, 5].map((i) => ({ rolloutUid: `b1-${i}`, label: "odd_sample", present: i % 2 === 1 }));
    const agreeing = retroValidate(oddSample, history, confirmed);
    expect(agreeing.accepted).toBe(true);
    expect(agreeing.evidence!.agreement).toEqual({ confirmed: 6, agreed: 6, rate: 1 });
    const disagreeing = retroValidate(oddSample, history, confirmed.map((c, i) => (i < 2 ? { ...c, present: !c.present } : c)));
    expect(disagreeing.accepted).toBe(false);
    expect(disagreeing.refusedBy).toContain("branch_separation");
    expect(disagreeing.evidence!.agreement).toEqual({ confirmed: 6, agreed: 4, rate: 4 / 6 });
  });
});

describe("registration is refused, naming the rule", () => {
  const refused = (v: ReturnType<typeof retroValidate>, rule: string) => {
    expect(v.accepted).toBe(false);
    expect(v.refusedBy).toContain(rule);
    expect(v.reasons.some((r) => r.startsWith(`${rule}:`))).toBe(true);
  };

  it("domain: a math final-answer rule is never registered for swe, nor a rule reading fields the domain lacks", () => {
    const formatError = MATH_DETECTORS.find((d) => d.label === "format_error")!;
    const v = retroValidate({ ...formatError, domains: ["math"] }, history, [], { domain: "swe" });
    refused(v, "domain");
    expect(v.reasons[0]).toBe("domain: written for math, not swe");
    expect(v.evidence).toBeUndefined();
    const tools: DetectorDefinition = { ...oddSample, id: "custom.tools", domains: ["math"], when: "size(tool_calls) > 3" };
    const t = retroValidate(tools, history, [], { domain: "math" });
    refused(t, "domain");
    expect(t.reasons[0]).toBe("domain: reads tool_calls, which math rollouts do not have");
    // Nor is it even offered: swe candidates come from rules written for swe only.
    const harness = harnessSchema.parse({ version: 1, detectors: [...SWE_DETECTORS], healthRules: [...DEFAULT_HEALTH_RULES] });
    expect(candidateDetectors(harness, "swe").map((d) => d.label)).not.toContain("format_error");
  });

  it("evidence and branch_separation: five branches with one promoted can never pass", () => {
    const five = [branch("b1", "promoted"), branch("b2", "rejected"), branch("b4", "rejected"), branch("b6", "rejected"), branch("b7", "rejected")];
    const v = retroValidate(mismatch, five);
    refused(v, "evidence");
    refused(v, "branch_separation");
    // Perfect separation (AUC 1), yet with 1 of 5 promoted no relabelling test can go below 1/5.
    expect(v.evidence!.separation!.auc).toBe(1);
    expect(v.evidence!.branchTest).toMatchObject({ p: 0.2, permutations: 5, exact: true });
    // Even with the minimum evidence waived the permutation test refuses it.
    refused(retroValidate(mismatch, five, [], { minBranchesPerSide: 1, minFlagged: 0 }), "branch_separation");
  });

  it("branch_separation: a detector as common on good branches as on bad ones", () => {
    const v = retroValidate(oddSample, history);
    refused(v, "branch_separation");
    expect(v.evidence!.separation).toMatchObject({ difference: 0, auc: 0.5 });
    // Firing more on promoted branches marks good behaviour, not a failure mode.
    const inverted = retroValidate(mismatch, history.map((b) => ({ ...b, outcome: b.outcome === "promoted" ? "rejected" as const : "promoted" as const })));
    refused(inverted, "branch_separation");
    expect(inverted.evidence!.separation).toMatchObject({ difference: -0.5, auc: 0 });
  });

  it("rollout_separation: branch rates that separate only because of a few tiny branches", () => {
    const flaggedBranch = (id: string, outcome: BranchRollouts["outcome"], n: number, flagged: number): BranchRollouts => ({
      branchId: id,
      outcome,
      rollouts: Array.from({ length: n }, (_, i) => rollout(`${id}-${i}`, `${id}-g`, 1, { response: "x", sample: i < flagged ? 1 : 0 })),
    });
    const skewed = [
      flaggedBranch("p1", "promoted", 100, 5), flaggedBranch("p2", "promoted", 100, 5), flaggedBranch("p3", "promoted", 100, 5),
      flaggedBranch("r1", "rejected", 1000, 60), flaggedBranch("r2", "rejected", 2, 2), flaggedBranch("r3", "rejected", 2, 2),
    ];
    // Counted over rollouts, r1's thousand rollouts would dominate; with branches as the units
    // (clustered standard errors, t on 4 df) the evidence is weak.
    const v = retroValidate(oddSample, skewed, [], { maxSuccessfulRate: 1, level: 0.01 });
    expect(v.refusedBy).toEqual(["branch_separation", "rollout_separation"]);
    expect(v.evidence!.branchTest!.p).toBe(0.05);
    expect(v.evidence!.rolloutTest).toMatchObject({ df: 4, branches: { rejected: 3, promoted: 3 } });
    expect(v.evidence!.rolloutTest!.p).toBeGreaterThan(0.01);
  });

  it("firing_rate: a detector on every rollout, or on the successes of promoted branches", () => {
    const a = retroValidate(always, history);
    refused(a, "firing_rate");
    expect(a.evidence!.firing.overall).toBe(1);
    const successes: DetectorDefinition = { ...oddSample, id: "custom.solved", label: "solved", when: "tests_passed == tests_total", cases: { match: [{ name: "solved", rollout: { response: "x", testResults: { passed: 3, total: 3 } } }], noMatch: [] } };
    const s = retroValidate(successes, history);
    refused(s, "firing_rate");
    expect(s.evidence!.firing.amongSuccessful).toBe(1);
  });

  it("cases: a candidate that fails its own cases or the CEL guards is never replayed", () => {
    const wrongCase = { ...mismatch, cases: { match: [{ name: "passing tests", rollout: { response: "x", reward: 1, testResults: { passed: 3, total: 3 } } }], noMatch: [] } };
    const v = retroValidate(wrongCase, history);
    expect(v).toEqual({ detectorId: mismatch.id, accepted: false, refusedBy: ["cases"], reasons: ['cases: "passing tests": expected true, got false'] });
    const unsafe = retroValidate({ ...mismatch, when: "system('ls') == ''" }, history);
    refused(unsafe, "cases");
    expect(unsafe.evidence).toBeUndefined();
    expect(unsafe.reasons[0]).toContain("unknown function 'system'");
  });
});

describe("the extra detector library", () => {
  it("holds sound rules: each passes the CEL guards and its own cases", () => {
    for (const def of EXTRA_DETECTORS) {
      const c = compileDetector(def);
      if (!c.ok) throw new Error(`${def.id}: ${c.message}`);
      expect(verifyDetectorCases(c.detector), def.id).toEqual([]);
      expect(def.cases!.match.length, def.id).toBeGreaterThan(0);
    }
  });
});

describe("candidateDetectors", () => {
  it("offers detectors of labels the harness lacks for the domain, each passing its own cases", () => {
    const harness = harnessSchema.parse({ version: 1, detectors: [...SWE_DETECTORS], healthRules: [...DEFAULT_HEALTH_RULES] });
    const candidates = candidateDetectors(harness, "swe");
    const labels = candidates.map((d) => d.label);
    expect(labels).toEqual(["reward_test_mismatch", "turn_limit", "near_length_limit"]);
    for (const known of SWE_DETECTORS.map((d) => d.label)) expect(labels).not.toContain(known);
    expect(new Set(labels).size).toBe(labels.length);
    expect(candidates.every((d) => d.domains.join() === "swe" && d.id === `swe.${d.label}` && !d.validity)).toBe(true);
  });
});

describe("evolveHarness", () => {
  const harness = harnessSchema.parse({ version: 3, detectors: [...SWE_DETECTORS], healthRules: [...DEFAULT_HEALTH_RULES] });
  const gap: DiagnosticGap = { gap: true, reasons: ["score flat"], scoreFlat: true, critFindings: [], failures: 10, unexplained: 10, unexplainedShare: 1, exampleUids: [] };

  it("does not count the same evidence twice: the run's level is divided over the candidates and the rounds it re-tests them in", () => {
    // Three branches per side reach p = 0.05 at best: enough for one test, never for a corrected family.
    const out = evolveHarness({ harness, domain: "swe", gap, branches: history, rounds: 4 });
    expect(out.registration).toBeUndefined();
    const level = 0.05 / (out.validations.length * 4);
    const mismatchTest = out.validations.find((v) => v.detectorId === "swe.reward_test_mismatch")!;
    expect(mismatchTest.evidence!.options.level).toBeCloseTo(level, 15);
    expect(mismatchTest.refusedBy).toEqual(["branch_separation"]);
  });

  it("registers the separating candidate as a new harness version, with its evidence and a health rule on its rate", () => {
    const out = evolveHarness({ harness, domain: "swe", gap, branches: twelve, rounds: 4 });
    expect(out.registration?.fromVersion).toBe(3);
    expect(out.registration?.toVersion).toBe(4);
    expect(out.registration?.added.map((a) => a.detectorId)).toEqual(["swe.reward_test_mismatch"]);
    const added = out.registration!.added[0]!;
    expect(added.healthRuleId).toBe("label-reward-test-mismatch-warn");
    expect(added.evidence.separation).toMatchObject({ difference: 0.5, auc: 1 });
    expect(added.evidence.perBranch.map((b) => b.rate)).toEqual([0, 0.5, 0, 0.5, 0, 0.5, 0, 0.5, 0, 0.5, 0, 0.5]);
    // 1 of C(12, 6) = 924 relabellings: below 0.05 / (candidates × 4 rounds).
    expect(added.evidence.branchTest).toMatchObject({ p: 1 / 924, exact: true });
    expect(added.evidence.test).toMatch(/^one-sided exact permutation test/);
    expect(out.harness.version).toBe(4);
    expect(out.harness.healthRules.at(-1)!.when).toBe("label_rate['reward_test_mismatch'] > 0.25");
    // Every other candidate was replayed and turned down.
    expect(out.validations.filter((v) => !v.accepted).length).toBe(out.validations.length - 1);

    const compiled = compileHarness(out.harness);
    if (!compiled.ok) throw new Error("new harness does not compile");
    expect(compiled.harness.label(twelve[1]!.rollouts, "swe").labels.filter((l) => l.label === "reward_test_mismatch")).toHaveLength(10);
  });

  it("keeps the harness when there is no gap or nothing separates", () => {
    expect(evolveHarness({ harness, domain: "swe", gap: { ...gap, gap: false }, branches: history })).toEqual({ harness, validations: [] });
    const honest = [branch("b1", "promoted"), branch("b3", "promoted"), branch("b5", "promoted")];
    const out = evolveHarness({ harness, domain: "swe", gap, branches: honest });
    expect(out.registration).toBeUndefined();
    expect(out.harness).toBe(harness);
  });
});
