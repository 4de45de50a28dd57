import { healthReport, invalidRollouts, taskScores, type CompiledHarness, type GateSide } from "@evotrainer/core";
import { loadBranchRollouts } from "@evotrainer/db";
import type { LoopDeps } from "./deps.ts";
import { lastTrainerMetrics } from "./last-trainer-metrics.ts";

/** Training steps whose rollouts describe how a branch behaves at the end of its training. */
const FINAL_TRAIN_STEPS = 3;

const mean = (values: Iterable<number>) => {
  const list = [...values];
  return list.length ? list.reduce((a, b) => a + b, 0) / list.length : 0;
};

/**
 * One side of the gate: the score per promotion task (locked grader, validity-flagged rollouts
 * count as failures) and the health report of the branch's last training steps.
 */
export async function gateSide(deps: LoopDeps, harness: CompiledHarness, branchId: string): Promise<GateSide & { score: number }> {
  const promotion = await loadBranchRollouts(deps.db, branchId, "promotion");
  const lastStep = await deps.db.rollout.aggregate({ where: { branchId, split: "train" }, _max: { step: true } });
  const train = await loadBranchRollouts(deps.db, branchId, "train", Math.max(0, (lastStep._max.step ?? 0) - FINAL_TRAIN_STEPS + 1));
  const scores = taskScores(promotion.rollouts, invalidRollouts(promotion.labels));
  const trainer = await lastTrainerMetrics(deps.db, branchId);
  return { taskScores: scores, report: healthReport(harness, train.rollouts, train.labels, trainer), score: mean(scores.values()) };
}

