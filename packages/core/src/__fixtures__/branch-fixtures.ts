import type { Rollout } from "@evotrainer/contract";
import type { BootstrapResult } from "../bootstrap.ts";
import type { DetectorDefinition, Domain } from "../harness/detector.ts";
import { compileHarness } from "../harness/harness.ts";
import { DEFAULT_HEALTH_RULES } from "../harness/health-rule.ts";
import { healthReport, type HealthReport } from "../harness/health-report.ts";
import type { Verdict } from "../verdict.ts";

/** A training rollout with neutral defaults; `extra` overrides any field. */
export function rollout(uid: string, groupId: string, reward: number, extra: Partial<Rollout> = {}): Rollout {
  return {
    uid,
    split: "train",
    step: 1,
    taskId: groupId,
    groupId,
    sample: 0,
    prompt: "q",
    response: "A: 4",
    reward,
    rewardComponents: {},
    responseTokens: 10,
    turns: 1,
    truncated: false,
    ...extra,
  };
}

function bootstrap(delta: number, ci: [number, number]): BootstrapResult {
  return { tasks: 100, delta, ci, confidence: 0.95, pNotBetter: ci[0] > 0 ? 0 : 0.5 };
}

/** A verdict with the numbers skills read: score delta and interval vs parent, and how far the targeted metric moved. */
export function verdictOf(promote: boolean, delta: number, ci: [number, number], targetDelta: number): Verdict {
  return {
    promote,
    checks: [
      { name: "main_score_vs_parent", passed: promote, detail: "", numbers: { delta, ciLow: ci[0], ciHigh: ci[1] } },
      { name: "targeted_metric", passed: promote, detail: "", numbers: { delta: targetDelta } },
    ],
    vsParent: bootstrap(delta, ci),
    vsBest: bootstrap(delta, ci),
  };
}

/** The health report of a branch under a harness of these detectors and the default health rules. */
export function branchReport(detectors: DetectorDefinition[], rollouts: readonly Rollout[], domain: Domain = "math"): HealthReport {
  const c = compileHarness({ version: 1, detectors, healthRules: [...DEFAULT_HEALTH_RULES] });
  if (!c.ok) throw new Error(JSON.stringify(c.rejections));
  return healthReport(c.harness, rollouts, c.harness.label(rollouts, domain).labels);
}

/** The intervention template of a dynamic-sampling skill, shared by the skill tests. */
export const dynamicSamplingTemplate = {
  hypothesis: "if dynamic sampling is enabled then dead_group_ratio falls because zero-variance groups are resampled",
  targetMetric: "dead_group_ratio",
  factor: "data.dynamicSampling",
  patch: [{ op: "replace" as const, path: "/data/dynamicSampling/enabled", value: true }],
  expectedEffect: { direction: "down" as const },
  falsification: "dead_group_ratio does not fall",
};
