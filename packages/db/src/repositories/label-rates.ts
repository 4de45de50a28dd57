import { FINAL_TRAIN_STEPS, labelledRollouts, labelRates } from "@evotrainer/core";
import type { Tx } from "./events.ts";

/**
 * Label rates per branch as the loop reads them: core's labelRates over the stored labels of the
 * last FINAL_TRAIN_STEPS training steps (loadLastTrainSteps), the window the diagnosis, backtest and
 * verdict's health report use. The run report and the dashboard read rates only through this.
 */
export async function branchLabelRates(db: Tx, branchIds: readonly string[]): Promise<Map<string, Record<string, number>>> {
  const last = await db.rollout.groupBy({ by: ["branchId"], where: { branchId: { in: [...branchIds] }, split: "train" }, _max: { step: true } });
  const rates = new Map<string, Record<string, number>>(branchIds.map((id) => [id, {}]));
  for (const l of last) {
    const window = { branchId: l.branchId, split: "train" as const, step: { gte: Math.max(0, (l._max.step ?? 0) - FINAL_TRAIN_STEPS + 1) } };
    const [rollouts, labels] = await Promise.all([
      db.rollout.count({ where: window }),
      db.rolloutLabel.findMany({ where: window, select: { label: true, rollout: { select: { uid: true } } } }),
    ]);
    rates.set(l.branchId, labelRates(rollouts, labelledRollouts(labels.map((x) => ({ label: x.label, rolloutUid: x.rollout.uid })))));
  }
  return rates;
}
