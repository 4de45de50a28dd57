import { lockedEvaluationOf, runConfigOf, type LockedEvaluation } from "@evotrainer/core";

export { runConfigOf };

export function lockedEvaluationOfRun(run: { settings: unknown }): LockedEvaluation {
  return lockedEvaluationOf(runConfigOf(run));
}
