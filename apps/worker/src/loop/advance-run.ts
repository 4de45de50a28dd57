import { OPEN_BRANCH_STATUSES } from "@evotrainer/core";
import { QueueName } from "@evotrainer/queue";
import type { LoopDeps } from "./deps.ts";
import { budgetExhausted } from "./budget.ts";
import { budgetUsed, finishRun } from "./finish-run.ts";

/**
 * Called whenever a branch settles: once every branch of the run has settled, either the next
 * round is proposed or, with the budget spent, the run is finished.
 */
export async function advanceRun(deps: LoopDeps, runId: string): Promise<string> {
  const { status } = await deps.db.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true } });
  if (status !== "running") return `run is ${status}`;
  const active = await deps.db.branch.count({ where: { runId, status: { in: [...OPEN_BRANCH_STATUSES] } } });
  if (active > 0) return `${active} branch(es) still active`;
  const { run, config, used } = await budgetUsed(deps, runId);
  const exhausted = budgetExhausted(config.budget, used);
  if (exhausted) return finishRun(deps, runId, exhausted);
  await deps.producer.enqueue(QueueName.Propose, { runId, round: run.round + 1 });
  return `round ${run.round + 1} proposed`;
}
