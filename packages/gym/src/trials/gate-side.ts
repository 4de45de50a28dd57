import { healthReport, invalidRollouts, taskScores, type CompiledHarness, type GateSide, type HealthReport } from "@evotrainer/core";
import type { LabelledBranch, LabelStore } from "./branch-labels.ts";

export interface ScoredSide extends GateSide {
  report: HealthReport;
  /** Mean promotion task score: validity-flagged rollouts count as failures. */
  score: number;
}

const mean = (values: Iterable<number>) => {
  const list = [...values];
  return list.length ? list.reduce((a, b) => a + b, 0) / list.length : 0;
};

/**
 * One side of the gate, as apps/worker/src/loop/gate-side.ts builds it: per-task promotion scores
 * under the locked grader, and the health report of the branch's last training steps.
 */
export function gateSide(branch: LabelledBranch, harness: CompiledHarness, labels: LabelStore): ScoredSide {
  const l = labels.of(branch, harness);
  const scores = taskScores(branch.promotion, invalidRollouts(l.promotion));
  return { taskScores: scores, report: healthReport(harness, branch.train, l.train), score: mean(scores.values()) };
}
