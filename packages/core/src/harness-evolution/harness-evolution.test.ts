import { describe, expect, it } from "vitest";
import type { Rollout } from "@evotrainer/contract";
import { rollout } from "../__fixtures__/branch-fixtures.ts";
import { SWE_DETECTORS } from "../catalog/index.ts";
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

const history = [branch("b1", "promoted"), branch("b2", "rejected"), branch("b3", "promoted"), branch("b4", "rejected")];

const always: DetectorDefinition = {
  id: "custom.always",
  label: "always",
  version: 1,
  domains: ["swe"],
  description: "Fires on every rollout.",
  when: "response_tokens >= 0",
  cases: { match: [{ name: "any", rollout: { response: "x" } }], noMatch: [] },
};
const evenSample: DetectorDefinition = {
  id: "custom.even_sample",
  label: "even_sample",
  version: 1,
  domains: ["swe"],
  description: "Fires on even sample indices: as common on good branches as on bad ones.",
  when: "sample % 2 == 0",
  cases: { match: [{ name: "sample 0", rollout: { response: "x", sample: 0 } }], noMatch: [{ name: "sample 1", rollout: { response: "x", sample: 1 } }] },
};

describe("retroValidate", () => {
  it("accepts a detector whose rate separates rejected from promoted branches, with per-branch evidence", () => {
    const v = retroValidate(mismatch, history);
    expect(v.accepted).toBe(true);
    expect(v.evidence!.perBranch).toEqual([
      { branchId: "b1", outcome: "promoted", rollouts: 20, flagged: 0, rate: 0 },
      { branchId: "b2", outcome: "rejected", rollouts: 20, flagged: 10, rate: 0.5 },
      { branchId: "b3", outcome: "promoted", rollouts: 20, flagged: 0, rate: 0 },
      { branchId: "b4", outcome: "rejected", rollouts: 20, flagged: 10, rate: 0.5 },
    ]);
    expect(v.evidence!.separation).toEqual({ promotedMean: 0, rejectedMean: 0.5, difference: 0.5, auc: 1 });
    expect(v.evidence!.errors).toBe(0);
  });

  it("rejects detectors that fire everywhere or as often on good branches as on bad ones", () => {
    const a = retroValidate(always, history);
    expect(a.accepted).toBe(false);
    expect(a.evidence!.separation).toEqual({ promotedMean: 1, rejectedMean: 1, difference: 0, auc: 0.5 });
    const e = retroValidate(evenSample, history);
    expect(e.accepted).toBe(false);
    expect(e.evidence!.separation).toMatchObject({ difference: 0, auc: 0.5 });
    // Firing more on promoted branches marks good behaviour, not a failure mode.
    const inverted = retroValidate(mismatch, history.map((b) => ({ ...b, outcome: b.outcome === "promoted" ? "rejected" as const : "promoted" as const })));
    expect(inverted.accepted).toBe(false);
    expect(inverted.evidence!.separation).toMatchObject({ difference: -0.5, auc: 0 });
  });

  it("accepts a non-separating detector that agrees with labels people confirmed, and not one that disagrees", () => {
    const confirmed = [0, 1, 2, 3, 4, 5].map((i) => ({ rolloutUid: `b1-${i}`, label: "even_sample", present: i % 2 === 0 }));
    const agreeing = retroValidate(evenSample, history, confirmed);
    expect(agreeing.accepted).toBe(true);
    expect(agreeing.evidence!.agreement).toEqual({ confirmed: 6, agreed: 6, rate: 1 });
    const disagreeing = retroValidate(evenSample, history, confirmed.map((c, i) => (i < 2 ? { ...c, present: !c.present } : c)));
    expect(disagreeing.accepted).toBe(false);
    expect(disagreeing.evidence!.agreement).toEqual({ confirmed: 6, agreed: 4, rate: 4 / 6 });
  });

  it("never replays a candidate that fails its own cases or the CEL guards", () => {
    const wrongCase = { ...mismatch, cases: { match: [{ name: "passing tests", rollout: { response: "x", reward: 1, testResults: { passed: 3, total: 3 } } }], noMatch: [] } };
    const v = retroValidate(wrongCase, history);
    expect(v).toEqual({ detectorId: mismatch.id, accepted: false, reasons: ['case "passing tests": expected true, got false'] });
    const unsafe = retroValidate({ ...mismatch, when: "system('ls') == ''" }, history);
    expect(unsafe.accepted).toBe(false);
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
    expect(labels.slice(0, 3)).toEqual(["reward_test_mismatch", "turn_limit", "near_length_limit"]);
    expect(labels).toContain("repetition_loop");
    for (const known of SWE_DETECTORS.map((d) => d.label)) expect(labels).not.toContain(known);
    expect(new Set(labels).size).toBe(labels.length);
    expect(candidates.every((d) => d.domains.join() === "swe" && d.id === `swe.${d.label}` && !d.validity)).toBe(true);
  });
});

describe("evolveHarness", () => {
  const harness = harnessSchema.parse({ version: 3, detectors: [...SWE_DETECTORS], healthRules: [...DEFAULT_HEALTH_RULES] });
  const gap: DiagnosticGap = { gap: true, reasons: ["score flat"], scoreFlat: true, critFindings: [], failures: 10, unexplained: 10, unexplainedShare: 1, exampleUids: [] };

  it("registers the separating candidate as a new harness version, with its evidence and a health rule on its rate", () => {
    const out = evolveHarness({ harness, domain: "swe", gap, branches: history });
    expect(out.registration?.fromVersion).toBe(3);
    expect(out.registration?.toVersion).toBe(4);
    expect(out.registration?.added.map((a) => a.detectorId)).toEqual(["swe.reward_test_mismatch"]);
    const added = out.registration!.added[0]!;
    expect(added.healthRuleId).toBe("label-reward-test-mismatch-warn");
    expect(added.evidence.separation).toMatchObject({ difference: 0.5, auc: 1 });
    expect(added.evidence.perBranch.map((b) => b.rate)).toEqual([0, 0.5, 0, 0.5]);
    expect(out.harness.version).toBe(4);
    expect(out.harness.healthRules.at(-1)!.when).toBe("label_rate['reward_test_mismatch'] > 0.25");
    // Every other candidate was replayed and turned down.
    expect(out.validations.filter((v) => !v.accepted).length).toBe(out.validations.length - 1);

    const compiled = compileHarness(out.harness);
    if (!compiled.ok) throw new Error("new harness does not compile");
    expect(compiled.harness.label(history[1]!.rollouts, "swe").labels.filter((l) => l.label === "reward_test_mismatch")).toHaveLength(10);
  });

  it("keeps the harness when there is no gap or nothing separates", () => {
    expect(evolveHarness({ harness, domain: "swe", gap: { ...gap, gap: false }, branches: history })).toEqual({ harness, validations: [] });
    const honest = [branch("b1", "promoted"), branch("b3", "promoted")];
    const out = evolveHarness({ harness, domain: "swe", gap, branches: honest });
    expect(out.registration).toBeUndefined();
    expect(out.harness).toBe(harness);
  });
});
