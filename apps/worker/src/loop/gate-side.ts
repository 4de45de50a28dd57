import { FINAL_TRAIN_STEPS } from "@evotrainer/core";
import { healthReport, invalidRollouts, taskScores, type CompiledHarness, type GateSide, type HealthReport } from "@evotrainer/core";
import { loadBranchRollouts, loadLastTrainSteps } from "@evotrainer/db";
import type { LoopDeps } from "./deps.ts";
import { lastTrainerMetrics } from "./last-trainer-metrics.ts";

const mean = (values: Iterable<number>) => {
  const list = [...values];
  return list.length ? list.reduce((a, b) => a + b, 0) / list.length : 0;
};

/**
 * One side of the gate: the score per promotion task (locked grader, validity-flagged rollouts
 * count as failures) and the health report of the branch's last training steps.
 */
export async function gateSide(deps: Pick<LoopDeps, "db">, harness: CompiledHarness, branchId: string): Promise<GateSide & { score: number; report: HealthReport }> {
  const promotion = await loadBranchRollouts(deps.db, branchId, "promotion");
  const train = await loadLastTrainSteps(deps.db, branchId, FINAL_TRAIN_STEPS);
  const scores = taskScores(promotion.rollouts, invalidRollouts(promotion.labels));
  const trainer = await lastTrainerMetrics(deps.db, branchId);
  return { taskScores: scores, report: healthReport(harness, train.rollouts, train.labels, trainer), score: mean(scores.values()) };
}

