import type { RunConfig } from "@evotrainer/core";

/** Why the run must stop now, or null while budget remains. Branches count the base's children. */
export function budgetExhausted(
  budget: RunConfig["budget"],
  used: { gpuSeconds: number; branches: number; rounds: number },
): string | null {
  if (used.gpuSeconds >= budget.gpuSeconds) return `GPU-seconds spent (${Math.round(used.gpuSeconds)} of ${budget.gpuSeconds})`;
  if (used.branches >= budget.branches) return `branch budget spent (${used.branches} of ${budget.branches})`;
  if (used.rounds >= budget.rounds) return `round budget spent (${used.rounds} of ${budget.rounds})`;
  return null;
}

/** Whether spending moved from below `share` of the GPU budget to at or above it (true once per run). */
export function crossedBudgetShare(budgetGpuSeconds: number, before: number, after: number, share: number): boolean {
  const line = budgetGpuSeconds * share;
  return before < line && after >= line;
}
