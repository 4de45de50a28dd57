import type { MetricsLine } from "@evotrainer/contract";

// TRL's GRPO metric names for the signals health rules read under short names (its `kl` and
// `entropy` already are those names).
const SHORT_NAMES: Record<string, string> = { "clip_ratio/region_mean": "clip_fraction" };

/**
 * TRL's logged metrics (`log_history` of `trainer_state.json`: one object per log call with
 * `step`, `epoch` and the logged values, eval calls prefixed `eval_`) as contract metrics lines.
 * Entries of the same step merge; non-numbers are dropped; lines come out in step order.
 */
export function trlLogHistoryToContract(logHistory: readonly unknown[]): MetricsLine[] {
  const byStep = new Map<number, Record<string, number | null>>();
  for (const entry of logHistory) {
    if (typeof entry !== "object" || entry === null) continue;
    const { step, ...values } = entry as Record<string, unknown>;
    if (typeof step !== "number" || !Number.isSafeInteger(step) || step < 0) continue;
    const data = byStep.get(step) ?? {};
    for (const [key, value] of Object.entries(values)) {
      if (typeof value === "number") data[key] = Number.isFinite(value) ? value : null;
      else if (value === null) data[key] = null;
    }
    for (const [long, short] of Object.entries(SHORT_NAMES)) {
      if (typeof data[long] === "number" && !(short in values)) data[short] = data[long];
    }
    byStep.set(step, data);
  }
  return [...byStep].sort(([a], [b]) => a - b).map(([step, data]) => ({ step, data }));
}
