import { lockedEvaluationOf, runConfigSchema, type LockedEvaluation, type RunConfig } from "@evotrainer/core";

/** The config a run was created with, frozen in its settings column. */
export function runConfigOf(run: { settings: unknown }): RunConfig {
  return runConfigSchema.parse(run.settings);
}

export function lockedEvaluationOfRun(run: { settings: unknown }): LockedEvaluation {
  return lockedEvaluationOf(runConfigOf(run));
}
