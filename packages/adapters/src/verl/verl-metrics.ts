import type { MetricsLine } from "@evotrainer/contract";
import { trainerMetrics } from "../trainer-metrics.ts";

/**
 * verl's file logger (`trainer.logger=[…,file]`, `VERL_FILE_LOGGER_PATH`) writes one
 * `{"step": N, "data": {...}}` line per step (newer versions add `elapsed_seconds`). Maps those
 * lines to the contract's metrics lines: numbers kept (non-finite ones as null), anything else
 * dropped, the short names health rules read added. A step logged twice (a resumed run) keeps
 * its last line, and lines come out in step order.
 */
export function verlMetricsToContract(lines: readonly unknown[]): MetricsLine[] {
  const byStep = new Map<number, MetricsLine>();
  for (const line of lines) {
    if (typeof line !== "object" || line === null) continue;
    const { step, data } = line as { step?: unknown; data?: unknown };
    if (typeof step !== "number" || !Number.isSafeInteger(step) || step < 0) continue;
    if (typeof data !== "object" || data === null) continue;
    const finite: Record<string, number> = {};
    const nulls: Record<string, null> = {};
    for (const [key, value] of Object.entries(data)) {
      if (typeof value === "number" && Number.isFinite(value)) finite[key] = value;
      else if (value === null || typeof value === "number") nulls[key] = null;
    }
    byStep.set(step, { step, data: { ...nulls, ...trainerMetrics(finite) } });
  }
  return [...byStep.values()].sort((a, b) => a.step - b.step);
}
